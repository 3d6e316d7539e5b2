import type { Operation } from '../operation.ts';

/** GET /plants: its route, scope and store actions, and its outcomes. */
export const operation = {
  name: 'list-plants',
  method: 'GET',
  path: '/plants',
  scope: 'plants/read',
  dynamodbActions: ['dynamodb:Scan'],
  summary: 'List plants, a page at a time',
  // A page answered: one per request, whatever the number of plants on it.
  outcomes: { listed: 'PlantsListed' },
  precondition: undefined,
  statuses: [200, 400],
} as const satisfies Operation;
