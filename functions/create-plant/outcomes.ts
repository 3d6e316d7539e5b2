import { failureCounters } from '../failures.ts';
import type { OutcomeCounters } from '../http/request-metrics.ts';
import type { CreateOutcome } from '../plants/plant-store.ts';

/**
 * What can come of POST /plants, and the counter each adds one to: a create, an idempotent
 * replay, a conflict, and the failures every operation shares. The dashboard and the alarms read
 * these names.
 */
export const createPlantOutcomes = {
  ...failureCounters,
  created: 'PlantsCreated',
  replayed: 'CreatesReplayed',
  conflict: 'CreateConflicts',
} as const satisfies OutcomeCounters & Readonly<Record<CreateOutcome | 'conflict', string>>;
