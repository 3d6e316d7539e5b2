import type { Operation } from '../operation.ts';

/** PUT /plants/{id}: its route, scope and store actions, and its outcomes. */
export const operation = {
  name: 'replace-plant',
  method: 'PUT',
  path: '/plants/{id}',
  scope: 'plants/write',
  dynamodbActions: ['dynamodb:PutItem'],
  summary: 'Replace a plant by id, if it exists and still has the ETag named in If-Match',
  // A plant replaced, an id no plant has (404: PUT never creates), or a plant that has changed
  // since the client read it (412).
  outcomes: {
    replaced: 'PlantsReplaced',
    not_found: 'ReplacesNotFound',
    changed: 'ReplacesPreconditionFailed',
  },
  precondition: 'If-Match',
  statuses: [200, 400, 404, 412, 413, 415],
} as const satisfies Operation;
