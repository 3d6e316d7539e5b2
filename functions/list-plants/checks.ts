import { type OperationChecks, refused } from '../checks/check.ts';
import type { operation } from './operation.ts';

/** How GET /plants is tried: one page of one plant at most, whatever the table holds. */
export const checks = {
  sample: { request: () => ({ query: 'limit=1' }), status: 200 },
  cases: [
    {
      name: 'a list with a valid token gets 200 and an array of plants',
      query: 'limit=1',
      expected: { status: 200, body: { kind: 'list' } },
    },
    refused(400, 'a limit of 0', { query: 'limit=0' }),
  ],
} as const satisfies OperationChecks<typeof operation>;
