import { failureCounters } from '../functions/failures.ts';
import type { Operation } from '../functions/operation.ts';

/** The counters of answers that are the service's fault: a 500, or a 503 of the store or issuer. */
export const serverFailureCounters: readonly string[] = unique([
  failureCounters.error,
  failureCounters.unavailable,
  failureCounters.issuer_unavailable,
]);

/** The counters only this operation adds to: its successes and its own refusals. */
export function ownCounters(operation: Pick<Operation, 'outcomes'>): string[] {
  const shared = new Set<string>(Object.values(failureCounters));
  return unique(Object.values(operation.outcomes)).filter((counter) => !shared.has(counter));
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}
