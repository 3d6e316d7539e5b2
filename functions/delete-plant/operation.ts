import type { Operation } from '../operation.ts';

/** DELETE /plants/{id}: its route, scope and store actions, and its outcomes. */
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
} as const satisfies Operation;
