import type { Operation } from '../operation.ts';

/** PUT /plants/{id}: its route, scope and store actions, its outcomes and how it is tried. */
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
  sample: {
    request: (id) => ({ pathParameters: { id }, body: '{"name":"Sample","tag":"sample"}' }),
    status: 404,
  },
  // The create makes the plant replaced; the delete at the end takes it away again.
  // A stateful walk: create, read, replace with the read's ETag, replace again with that ETag,
  // which the first replace made stale. The delete at the end takes the plant away again.
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
      name: 'reading it gets its ETag',
      operation: 'get-plant',
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
      name: "replacing it with the read's ETag in If-Match gets 200, the plant and a new ETag",
      headers: { 'if-match': '{{etag}}' },
      body: '{"name":"Pre-traffic check","tag":"replaced"}',
      expected: {
        status: 200,
        headers: { etag: /^"[^"]+"$/ },
        body: {
          kind: 'json',
          value: { id: '{{id}}', name: 'Pre-traffic check', tag: 'replaced' },
        },
      },
    },
    {
      name: "replacing it again with the read's ETag, now stale, gets 412 in the error shape",
      headers: { 'if-match': '{{previous-etag}}' },
      body: '{"name":"Pre-traffic check","tag":"lost"}',
      expected: { status: 412, body: { kind: 'error' } },
    },
    {
      name: 'replacing it without If-Match gets 200: an unconditional replace',
      body: '{"name":"Pre-traffic check"}',
      expected: {
        status: 200,
        headers: { etag: /^"[^"]+"$/ },
        body: { kind: 'json', value: { id: '{{id}}', name: 'Pre-traffic check' } },
      },
    },
    {
      name: 'a body without a name gets 400 in the error shape',
      body: '{"tag":"nameless"}',
      expected: { status: 400, body: { kind: 'error' } },
    },
    {
      name: 'the plant deleted after the check',
      operation: 'delete-plant',
      always: true,
      expected: { status: 204, body: { kind: 'empty' } },
    },
    {
      name: 'replacing it once deleted gets 404 in the error shape',
      body: '{"name":"Pre-traffic check"}',
      expected: { status: 404, body: { kind: 'error' } },
    },
  ],
} as const satisfies Operation;
