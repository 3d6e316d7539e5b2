import { createPlantOutcomes } from '../functions/create-plant/outcomes.ts';
import { deletePlantOutcomes } from '../functions/delete-plant/outcomes.ts';
import { failureCounters } from '../functions/failures.ts';
import type { OutcomeCounters } from '../functions/http/request-metrics.ts';
import { listPlantsOutcomes } from '../functions/list-plants/outcomes.ts';
import type { OperationName } from '../functions/operations.ts';

/**
 * The counters each operation's function adds to, by outcome, as its handler declares them: what
 * the dashboard graphs and the alarms read for that operation. One entry per operation, so a new
 * operation fails the type check here until its counters are named.
 */
export const operationCounters: { readonly [name in OperationName]: OutcomeCounters } = {
  'create-plant': createPlantOutcomes,
  'list-plants': listPlantsOutcomes,
  'delete-plant': deletePlantOutcomes,
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
  const shared = new Set<string>(Object.values(failureCounters));
  return unique(Object.values(counters)).filter((counter) => !shared.has(counter));
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}
