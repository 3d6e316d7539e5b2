import { etagPlaceholder, type OperationChecks, refused } from '../checks/check.ts';
import type { operation } from './operation.ts';

const deleted = { status: 204, body: { kind: 'empty' } } as const;

/**
 * How DELETE /plants/{id} is tried: the check plant kept by an If-Match it does not meet, deleted
 * by one it meets (a 412 would say it had gone), then its id deleted again while it holds none.
 */
export const checks = {
  sample: { request: (id) => ({ pathParameters: { id } }), status: 204 },
  cases: [
    refused(412, 'a delete with an ETag the plant does not have in If-Match', {
      headers: { 'if-match': '"not-its-etag"' },
    }),
    {
      name: 'a delete with its ETag in If-Match gets 204 and no body',
      headers: { 'if-match': etagPlaceholder },
      expected: deleted,
    },
    { name: 'a delete of an id no plant has gets 204 and no body', expected: deleted },
    refused(400, 'an id in another spelling (01)', { id: '01' }),
  ],
} as const satisfies OperationChecks<typeof operation>;
