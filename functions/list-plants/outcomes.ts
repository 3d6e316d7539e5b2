import { failureCounters } from '../failures.ts';
import type { OutcomeCounters } from '../http/request-metrics.ts';

/**
 * What can come of GET /plants, and the counter each adds one to: a page answered (one per
 * request, whatever the number of plants on it), and the failures every operation shares. The
 * dashboard and the alarms read these names.
 */
export const listPlantsOutcomes = {
  ...failureCounters,
  listed: 'PlantsListed',
} as const satisfies OutcomeCounters;
