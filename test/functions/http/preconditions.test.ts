import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Precondition } from '../../../functions/http/preconditions.ts';
import { checksOf, operationNamed, operations } from '../../../functions/operations.ts';
import { hygieneHeaders } from '../../support/contract.ts';
import { fakeOperationEvent } from '../../support/fake-event.ts';
import { bodyOf, type PlantApiHarness, startPlantApi } from '../../support/plant-api-harness.ts';

let api: PlantApiHarness;
let token: string;

beforeAll(async () => {
  api = await startPlantApi();
  token = await api.issuer.mint({ claims: { scope: 'plants/read plants/write' }, expiresIn: 3600 });
});
afterAll(() => api.close());

const preconditions: readonly Precondition[] = ['If-Match', 'If-None-Match'];

/** The operation's sample request about a fresh id, with `headers` beside the token. */
const send = (operation: (typeof operations)[number], headers: Record<string, string>) => {
  const id = api.freshId();
  return {
    id,
    result: api.handlers[operation.name](
      fakeOperationEvent(operation, checksOf(operation).sample.request(id), { token, headers }),
    ),
  };
};
const messageOf = (result: { body?: string }) => (bodyOf(result) as { message: string }).message;

/**
 * Decision 0130 for every operation of the list, as each declares it: a precondition header is
 * evaluated by the operation that declares it, and refused by every other, never ignored.
 */
describe.each(operations.map((operation) => [operation.name, operation] as const))(
  '%s and the precondition headers',
  (_name, operation) => {
    const refused = preconditions.filter((name) => name !== operation.precondition);

    it.each(refused.flatMap((name) => ['*', '"a"', 'abc', ''].map((value) => [name, value])))(
      '%s: %j is refused with 400 naming it, before the store is called',
      async (name, value) => {
        const callsBefore = api.storeCalls();

        const { id, result } = send(operation, { [name.toLowerCase()]: value });
        const answer = await result;

        expect(answer.statusCode).toBe(400);
        expect(answer.headers).toStrictEqual(hygieneHeaders);
        expect(messageOf(answer)).toMatch(new RegExp(`^${name} is not supported here: `));
        expect(api.storeCalls()).toBe(callsBefore);
        expect(await api.dynalite.getItem(api.tableName, id)).toBeUndefined();
      },
    );
  },
);

describe.each(
  operations.flatMap(({ name, precondition }) =>
    precondition === undefined ? [] : [[name, precondition] as const],
  ),
)('%s evaluates %s', (name, precondition) => {
  it('so a malformed value is refused with 400 naming it', async () => {
    const answer = await send(operationNamed(name), { [precondition.toLowerCase()]: 'abc' }).result;

    expect(answer.statusCode).toBe(400);
    expect(messageOf(answer)).toMatch(new RegExp(`^${precondition} must be `));
  });
});

describe('which operation evaluates which precondition', () => {
  it.each(operations.map((operation) => [operation.name, operation] as const))(
    '%s: one on a plant (a read If-None-Match, a write If-Match), none on the collection',
    (_name, { method, path, precondition }) => {
      const onePlant = path.includes('{');
      const expected = !onePlant ? undefined : method === 'GET' ? 'If-None-Match' : 'If-Match';
      expect(precondition).toBe(expected);
    },
  );

  it('the edge names the header a read or a write evaluates instead, and says so when there is none', async () => {
    const refusedCreate = await send(operationNamed('create-plant'), { 'if-none-match': '*' })
      .result;
    const refusedRead = await send(operationNamed('get-plant'), { 'if-match': '*' }).result;

    expect(messageOf(refusedCreate)).toBe(
      'If-None-Match is not supported here: this operation evaluates no precondition',
    );
    expect(messageOf(refusedRead)).toBe(
      'If-Match is not supported here: send If-None-Match instead',
    );
  });
});
