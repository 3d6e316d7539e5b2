import type { Operation } from '../operation.ts';

/** GET /plants: its route, scope and store actions, its outcomes and how it is tried. */
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
  sample: { request: () => ({ query: 'limit=1' }), status: 200 },
  // One page of one plant at most, whatever the table holds.
  preTrafficCases: [
    {
      name: 'a list with a valid token gets 200 and an array of plants',
      query: 'limit=1',
      expected: { status: 200, body: { kind: 'list' } },
    },
    {
      name: 'a limit of 0 gets 400 in the error shape',
      query: 'limit=0',
      expected: { status: 400, body: { kind: 'error' } },
    },
  ],
} as const satisfies Operation;
