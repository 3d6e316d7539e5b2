import {
  checkPlant,
  checkPlantDeleted,
  etagPlaceholder,
  idPlaceholder,
  type OperationChecks,
  previousEtagPlaceholder,
  refused,
  strongEtag,
} from '../checks/check.ts';
import type { operation } from './operation.ts';

const { name } = checkPlant;
/** A replace of the check plant answered 200, with the plant as `body` gives it. */
const replaced = (body: Record<string, string>) =>
  ({
    status: 200,
    headers: strongEtag,
    body: { kind: 'json', value: { id: idPlaceholder, ...body } },
  }) as const;

/**
 * How PUT /plants/{id} is tried, a stateful walk on the check plant: replaced with its ETag, then
 * again with that ETag, which the first replace made stale, then without If-Match; once the
 * fixture deleted it, a replace must not create it.
 */
export const checks = {
  sample: {
    request: (id) => ({ pathParameters: { id }, body: '{"name":"Sample","tag":"sample"}' }),
    status: 404,
  },
  cases: [
    {
      name: 'replacing it with its ETag in If-Match gets 200, the plant and a new ETag',
      headers: { 'if-match': etagPlaceholder },
      body: JSON.stringify({ name, tag: 'replaced' }),
      expected: replaced({ name, tag: 'replaced' }),
    },
    refused(412, 'replacing it again with that ETag, now stale,', {
      headers: { 'if-match': previousEtagPlaceholder },
      body: JSON.stringify({ name, tag: 'lost' }),
    }),
    {
      name: 'replacing it without If-Match gets 200: an unconditional replace',
      body: JSON.stringify({ name }),
      expected: replaced({ name }),
    },
    refused(400, 'a body without a name', { body: '{"tag":"nameless"}' }),
    checkPlantDeleted,
    refused(404, 'replacing it once deleted', { body: JSON.stringify({ name }) }),
  ],
} as const satisfies OperationChecks<typeof operation>;
