import { outcomeMetric } from '../functions/http/request-metrics.ts';
import type { OperationName } from '../functions/operations.ts';

export type OutcomeCounters = Readonly<Record<string, string>>;

const { created, replayed, conflict, ...shared } = outcomeMetric;

/** The failures every operation counts under the same names, whatever the operation. */
export const failureCounters = shared;

/**
 * The counters each operation's function adds to, by outcome, as its handler names them: what
 * the dashboard graphs and the alarms read for that operation. One entry per operation, so a new
 * operation fails the type check here until its counters are named.
 */
export const operationCounters: { readonly [name in OperationName]: OutcomeCounters } = {
  'create-plant': outcomeMetric,
  'list-plants': { ...failureCounters, listed: 'PlantsListed' },
  'delete-plant': { ...failureCounters, deleted: 'PlantsDeleted' },
};

/** The counters of answers that are the service's fault: a 500, or a 503 of the store or issuer. */
export const serverFailureCounters: readonly string[] = unique([
  failureCounters.error,
  failureCounters.unavailable,
  failureCounters.issuer_unavailable,
]);

/** The counters only this operation adds to: its successes, and its own refusals. */
export function ownCounters(name: string): string[] {
  const counters = (operationCounters as Readonly<Record<string, OutcomeCounters | undefined>>)[
    name
  ];
  if (counters === undefined) throw new Error(`no counters named for the operation ${name}`);
  const sharedNames = new Set(Object.values(failureCounters));
  return unique(Object.values(counters)).filter((counter) => !sharedNames.has(counter));
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}
