import type { Operation } from '../operation.ts';

/** DELETE /plants/{id}: its route, scope and store actions, its outcomes and how it is tried. */
export const operation = {
  name: 'delete-plant',
  method: 'DELETE',
  path: '/plants/{id}',
  scope: 'plants/write',
  dynamodbActions: ['dynamodb:DeleteItem'],
  summary: 'Delete a plant by id, if it still has the ETag named in If-Match',
  // A plant removed, an id that held none (a retry whose first answer was lost, or a client
  // deleting what was never there: 204 either way), or, with If-Match, a plant that has changed
  // since the client read it or is no longer there (412).
  outcomes: {
    deleted: 'PlantsDeleted',
    absent: 'DeletesAbsent',
    changed: 'DeletesPreconditionFailed',
  },
  precondition: 'If-Match',
  statuses: [204, 400, 412],
  sample: { request: (id) => ({ pathParameters: { id } }), status: 204 },
  // The run's id is fresh, so the delete removes nothing anyone stored.
  preTrafficCases: [
    {
      name: 'a delete of an id no plant has gets 204 and no body',
      expected: { status: 204, body: { kind: 'empty' } },
    },
    {
      name: 'an id in another spelling (01) gets 400 in the error shape',
      id: '01',
      expected: { status: 400, body: { kind: 'error' } },
    },
  ],
} as const satisfies Operation;
