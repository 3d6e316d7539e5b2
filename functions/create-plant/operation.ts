import type { Operation } from '../operation.ts';

/** POST /plants: its route, scope and store actions, and its outcomes. */
export const operation = {
  name: 'create-plant',
  method: 'POST',
  path: '/plants',
  scope: 'plants/write',
  dynamodbActions: ['dynamodb:PutItem', 'dynamodb:GetItem'],
  summary: 'Create a plant, or replay an identical create',
  // A create, an identical create replayed, and a different create of a stored id.
  outcomes: { created: 'PlantsCreated', replayed: 'CreatesReplayed', conflict: 'CreateConflicts' },
  precondition: undefined,
  statuses: [200, 400, 409, 413, 415],
} as const satisfies Operation;
