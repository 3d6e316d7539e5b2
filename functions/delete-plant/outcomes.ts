import { failureCounters } from '../failures.ts';
import type { OutcomeCounters } from '../http/request-metrics.ts';

export type DeleteOutcome = 'deleted' | 'absent';

/**
 * What can come of DELETE /plants/{id}, and the counter each adds one to: a plant removed, an id
 * that held none (a retry whose first answer was lost, or a client deleting what was never
 * there: 204 either way), and the failures every operation shares. The dashboard and the alarms
 * read these names.
 */
export const deletePlantOutcomes = {
  ...failureCounters,
  deleted: 'PlantsDeleted',
  absent: 'DeletesAbsent',
} as const satisfies OutcomeCounters & Readonly<Record<DeleteOutcome, string>>;
