import type { Operation } from '../operation.ts';

/** GET /plants/{id}: its route, scope and store actions, and its outcomes. */
export const operation = {
  name: 'get-plant',
  method: 'GET',
  path: '/plants/{id}',
  scope: 'plants/read',
  dynamodbActions: ['dynamodb:GetItem'],
  summary: 'Read a plant by id, with its ETag',
  // A plant answered, a client's copy confirmed current (304), or an id no plant has (404).
  outcomes: { read: 'PlantsRead', not_modified: 'ReadsNotModified', not_found: 'ReadsNotFound' },
  precondition: 'If-None-Match',
  statuses: [200, 304, 400, 404],
} as const satisfies Operation;
