import type { Operation } from '../operation.ts';

/** GET /plants/{id}: its route, scope and store actions, its outcomes and how it is tried. */
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
  sample: { request: (id) => ({ pathParameters: { id } }), status: 404 },
  // The create makes the plant read; the delete at the end takes it away again.
  preTrafficCases: [
    {
      name: 'a plant created for the check',
      operation: 'create-plant',
      // The checks' reserved tag (infra/webhook-settings.ts `checkPlantTag`): never delivered.
      body: '{"id":{{id}},"name":"Pre-traffic check","tag":"plant-store-check"}',
      expected: {
        status: 200,
        body: { kind: 'json', value: { name: 'Pre-traffic check', tag: 'plant-store-check' } },
      },
    },
    {
      name: 'reading it gets 200, the plant and a strong ETag',
      expected: {
        status: 200,
        headers: { etag: /^"[^"]+"$/ },
        body: {
          kind: 'json',
          value: { id: '{{id}}', name: 'Pre-traffic check', tag: 'plant-store-check' },
        },
      },
    },
    {
      name: 'reading it with its ETag in If-None-Match gets 304 and no body',
      headers: { 'if-none-match': '{{etag}}' },
      expected: { status: 304, headers: { etag: /^"[^"]+"$/ }, body: { kind: 'empty' } },
    },
    {
      name: 'an id in another spelling (01) gets 400 in the error shape',
      id: '01',
      expected: { status: 400, body: { kind: 'error' } },
    },
    {
      name: 'the plant deleted after the check',
      operation: 'delete-plant',
      always: true,
      expected: { status: 204, body: { kind: 'empty' } },
    },
    {
      name: 'reading it once deleted gets 404 in the error shape',
      expected: { status: 404, body: { kind: 'error' } },
    },
  ],
} as const satisfies Operation;
