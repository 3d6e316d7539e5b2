import {
  checkPlantDeleted,
  etagPlaceholder,
  type OperationChecks,
  refused,
  storedCheckPlant,
  strongEtag,
} from '../checks/check.ts';
import type { operation } from './operation.ts';

/** How GET /plants/{id} is tried: the check plant read, then read once the fixture deleted it. */
export const checks = {
  sample: { request: (id) => ({ pathParameters: { id } }), status: 404 },
  cases: [
    {
      name: 'reading the check plant gets 200, the plant and a strong ETag',
      expected: {
        status: 200,
        headers: strongEtag,
        body: { kind: 'json', value: storedCheckPlant },
      },
    },
    {
      name: 'reading it with its ETag in If-None-Match gets 304 and no body',
      headers: { 'if-none-match': etagPlaceholder },
      expected: { status: 304, headers: strongEtag, body: { kind: 'empty' } },
    },
    refused(400, 'an id in another spelling (01)', { id: '01' }),
    checkPlantDeleted,
    refused(404, 'reading it once deleted'),
  ],
} as const satisfies OperationChecks<typeof operation>;
