import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operation } from '../../../functions/delete-plant/operation.ts';
import { requestPath } from '../../../functions/operation.ts';
import { operationNamed, routeKey } from '../../../functions/operations.ts';
import {
  expectErrorShape,
  hygieneHeaders,
  missingTokenAnswer,
  noContentHeaders,
} from '../../support/contract.ts';
import {
  type BodilessEventOverrides,
  fakeEvent,
  fakeOperationEvent,
} from '../../support/fake-event.ts';
import { bodyOf, type PlantApiHarness, startPlantApi } from '../../support/plant-api-harness.ts';

/** An id the store wrapper below fails on as a bug would: the one way to reach "anything unexpected". */
const unexpectedFailure = '-4242';

let api: PlantApiHarness;
let read: string;
let write: string;

beforeAll(async () => {
  api = await startPlantApi({
    faultProxy: true,
    dynamodb: { maxAttempts: 2, backoffBaseMs: 5 },
    wrapStore: (store) => ({
      delete: (id, condition) => {
        if (id === unexpectedFailure) throw new TypeError('store blew up unexpectedly');
        return store.delete(id, condition);
      },
    }),
  });
  [read, write] = await Promise.all([
    api.issuer.mint({ claims: { scope: 'plants/read' }, expiresIn: 3600 }),
    api.issuer.mint({ claims: { scope: 'plants/write' }, expiresIn: 3600 }),
  ]);
});
afterAll(() => api.close());

const deleteEvent = (id: string, overrides: BodilessEventOverrides = { token: write }) =>
  fakeOperationEvent(operation, { pathParameters: { id } }, overrides);
const remove = (id: string, overrides?: BodilessEventOverrides) =>
  api.handlers['delete-plant'](deleteEvent(id, overrides));
/** A create, with the id written as the JSON number it is. */
const create = (id: string, plant: { name: string; tag?: string }) =>
  api.invoke(fakeEvent({ token: write, body: `{"id":${id},${JSON.stringify(plant).slice(1)}` }));
const stored = (id: string) => api.dynalite.getItem(api.tableName, id);
const item = (id: string, name: string) => ({ id: { N: id }, name: { S: name } });
/** The delete with these headers beside a plants/write token. */
const removeWith = (id: string, headers: Record<string, string>) =>
  remove(id, { token: write, headers });
/** The ETag the read answers for the plant now, or '' when there is none. */
const etagOf = async (id: string) =>
  String(
    (
      await api.handlers['get-plant'](
        fakeOperationEvent(
          operationNamed('get-plant'),
          { pathParameters: { id } },
          { token: read },
        ),
      )
    ).headers?.etag ?? '',
  );
const replace = (id: string, body: string, headers: Record<string, string> = {}) =>
  api.handlers['replace-plant'](
    fakeOperationEvent(
      operationNamed('replace-plant'),
      { pathParameters: { id }, body },
      { token: write, headers },
    ),
  );

/** One case per answer the delete can give, in the order of the API table. */
describe(`${routeKey(operation)}, answer by answer`, () => {
  it('a token with plants/write and a stored id: 204, no body, no Content-Type, and the plant is gone', async () => {
    const id = api.freshId();
    await create(id, { name: 'Fern', tag: 'indoor' });

    const result = await remove(id);

    expect(result).toStrictEqual({ statusCode: 204, headers: noContentHeaders });
    expect(await stored(id)).toBeUndefined();
  });

  it('an id that holds no plant: 204 all the same, and nothing else changes', async () => {
    const neighbour = api.freshId();
    const absent = api.freshId();
    await create(neighbour, { name: 'Neighbour' });

    const first = await remove(absent);
    const again = await remove(absent);

    expect(first).toStrictEqual({ statusCode: 204, headers: noContentHeaders });
    expect(again).toStrictEqual({ statusCode: 204, headers: noContentHeaders });
    expect(await stored(neighbour)).toStrictEqual(item(neighbour, 'Neighbour'));
  });

  it('deletes exactly the id it is given, at both ends of the int64 range', async () => {
    const ids = ['9223372036854775807', '9223372036854775806', '-9223372036854775808'];
    await Promise.all(ids.map((id, n) => create(id, { name: `Edge ${n}` })));

    const results = await Promise.all([remove(ids[0] ?? ''), remove(ids[2] ?? '')]);

    expect(results.map(({ statusCode }) => statusCode)).toStrictEqual([204, 204]);
    expect(await Promise.all(ids.map(stored))).toStrictEqual([
      undefined,
      item('9223372036854775806', 'Edge 1'),
      undefined,
    ]);
  });

  describe('an id that is not an int64 in canonical form: 400 naming id, and no plant is touched', () => {
    const canonical = [
      'an integer in canonical decimal form: digits only, an optional leading -, no leading',
      'zeros, no + sign, fraction, exponent or spaces, and not -0',
    ].join(' ');
    beforeAll(async () => {
      // The plants that a lenient reading of the ids below would name.
      for (const id of ['0', '1', '10', '1000', '16']) await create(id, { name: `Plant ${id}` });
    });

    it.each([
      ['a leading zero', '01', `id must be ${canonical}`],
      ['zeros only', '00', `id must be ${canonical}`],
      ['a fraction', '1.0', `id must be ${canonical}`],
      ['an exponent', '1e3', `id must be ${canonical}`],
      ['a negative zero', '-0', `id must be ${canonical}`],
      ['a plus sign', '+1', `id must be ${canonical}`],
      ['a leading space', ' 1', `id must be ${canonical}`],
      ['a trailing space', '1 ', `id must be ${canonical}`],
      ['hexadecimal', '0x10', `id must be ${canonical}`],
      ['a thousands separator', '1,000', `id must be ${canonical}`],
      ['Arabic-Indic digits', '\u0661', `id must be ${canonical}`],
      ['letters', 'fern', `id must be ${canonical}`],
      ['empty', '', `id must be ${canonical}`],
      [
        'one past the largest int64',
        '9223372036854775808',
        'id must be between -9223372036854775808 and 9223372036854775807',
      ],
      [
        'one below the smallest int64',
        '-9223372036854775809',
        'id must be between -9223372036854775808 and 9223372036854775807',
      ],
      [
        'far out of range',
        '99999999999999999999999',
        'id must be between -9223372036854775808 and 9223372036854775807',
      ],
    ])('%s (%j)', async (_case, id, message) => {
      const callsBefore = api.storeCalls();

      const result = await remove(id);

      expect(result.statusCode).toBe(400);
      expect(result.headers).toStrictEqual(hygieneHeaders);
      expect(bodyOf(result)).toStrictEqual({ error: 400, message });
      expect(api.storeCalls()).toBe(callsBefore);
      for (const plant of ['0', '1', '10', '1000', '16']) {
        expect(await stored(plant)).toStrictEqual(item(plant, `Plant ${plant}`));
      }
    });

    it('no id at all in the path parameters: 400 naming id', async () => {
      const event = deleteEvent('1');
      delete event.pathParameters;

      const result = await api.handlers['delete-plant'](event);

      expect(result.statusCode).toBe(400);
      expect(bodyOf(result)).toStrictEqual({ error: 400, message: `id must be ${canonical}` });
      expect(await stored('1')).toStrictEqual(item('1', 'Plant 1'));
    });
  });

  it('no Authorization: 401 with a bare Bearer challenge, before the id is looked at', async () => {
    const id = api.freshId();
    await create(id, { name: 'Kept' });
    const callsBefore = api.storeCalls();

    const results = await Promise.all(
      [id, '01'].map((target) => remove(target, { headers: { authorization: undefined } })),
    );

    for (const result of results) {
      expect(result.statusCode).toBe(401);
      expect(result.headers).toStrictEqual(missingTokenAnswer.headers);
      expect(bodyOf(result)).toStrictEqual(missingTokenAnswer.body);
    }
    expect(api.storeCalls()).toBe(callsBefore);
    expect(await stored(id)).toStrictEqual(item(id, 'Kept'));
  });

  it('an expired token: 401 with error="invalid_token", and the plant stays', async () => {
    const id = api.freshId();
    await create(id, { name: 'Kept' });
    const expired = await api.issuer.mint({ expiresIn: -60 });

    const result = await remove(id, { token: expired });

    expect(result.statusCode).toBe(401);
    expect(result.headers?.['www-authenticate']).toMatch(/error="invalid_token"/);
    expect(bodyOf(result)).toStrictEqual({ error: 401, message: 'Token has expired' });
    expect(await stored(id)).toStrictEqual(item(id, 'Kept'));
  });

  it('a token with plants/read only: 403 insufficient_scope naming plants/write, and the plant stays', async () => {
    const id = api.freshId();
    await create(id, { name: 'Kept' });
    const callsBefore = api.storeCalls();

    const result = await remove(id, { token: read });

    expect(result.statusCode).toBe(403);
    expect(result.headers).toStrictEqual({
      ...hygieneHeaders,
      'www-authenticate':
        'Bearer realm="plant-store", error="insufficient_scope", error_description="Token lacks the scope \'plants/write\'", scope="plants/write"',
    });
    expect(bodyOf(result)).toStrictEqual({
      error: 403,
      message: 'Token lacks the scope "plants/write"',
    });
    expect(api.storeCalls()).toBe(callsBefore);
    expect(await stored(id)).toStrictEqual(item(id, 'Kept'));
  });

  it('the store throttled after retries: 503 with Retry-After, and the plant stays', async () => {
    const id = api.freshId();
    await create(id, { name: 'Kept' });
    await api.proxy?.inject({ kind: 'dynamoError', status: 400, type: 'ThrottlingException' });

    const result = await remove(id);
    await api.proxy?.restore();

    expect(result.statusCode).toBe(503);
    expect(result.headers).toStrictEqual({ ...hygieneHeaders, 'retry-after': '1' });
    expect(bodyOf(result)).toStrictEqual({
      error: 503,
      message: 'The plant store is busy or unavailable, retry later',
    });
    expect(await stored(id)).toStrictEqual(item(id, 'Kept'));
  });

  it('anything unexpected: 500, logged with the request id, the body saying nothing internal', async () => {
    api.logs.length = 0;

    const result = await remove(unexpectedFailure);

    expect(result.statusCode).toBe(500);
    expect(result.headers).toStrictEqual(hygieneHeaders);
    expect(bodyOf(result)).toStrictEqual({ error: 500, message: 'Internal server error' });
    expect(api.logs.find((line) => line.message === 'unexpected error')?.fields).toMatchObject({
      requestId: expect.stringMatching(/^test-request-/),
    });
  });
});

/** RFC 9110 13.1.1: the delete happens only while the plant has an ETag If-Match names. */
describe(`${routeKey(operation)} with If-Match`, () => {
  it.each([
    ['its current ETag', async (id: string) => etagOf(id)],
    ['a list holding its current ETag', async (id: string) => `"x", W/"y", ${await etagOf(id)}`],
    ['*', async () => '*'],
  ])('naming %s: 204, no body, and the plant is gone', async (_case, header) => {
    const id = api.freshId();
    await create(id, { name: 'Fern' });

    const result = await removeWith(id, { 'if-match': await header(id) });

    expect(result).toStrictEqual({ statusCode: 204, headers: noContentHeaders });
    expect(await stored(id)).toBeUndefined();
  });

  it.each([
    ['an ETag it had before a replace', async (_id: string, old: string) => old],
    [
      'its current ETag made weak (strong comparison)',
      async (id: string) => `W/${await etagOf(id)}`,
    ],
    ['an ETag no write made', async () => '"not-a-revision"'],
    ['a revision-shaped ETag it never had', async () => '"AAAAAAAAAAAAAAAAAAAAAA"'],
  ])('naming %s: 412 in the error shape, and the plant stays as it was', async (_case, header) => {
    const id = api.freshId();
    await create(id, { name: 'Fern' });
    const old = await etagOf(id);
    await replace(id, '{"name":"Moss"}');
    const current = await etagOf(id);

    const result = await removeWith(id, { 'if-match': await header(id, old) });

    expect(result.statusCode).toBe(412);
    expect(result.headers).toStrictEqual(hygieneHeaders);
    expect(bodyOf(result)).toStrictEqual({
      error: 412,
      message: `Plant ${id} has changed since it was read: read it again, then retry with its ETag`,
    });
    expect(await stored(id)).toStrictEqual(item(id, 'Moss'));
    expect(await etagOf(id)).toBe(current);
  });

  it.each([
    ['*', () => '*'],
    ['the ETag it had', (etag: string) => etag],
  ])(
    'naming %s of an id that holds no plant (any longer): 412, not 204, and nothing is created',
    async (_case, header) => {
      const never = api.freshId();
      const gone = api.freshId();
      await create(gone, { name: 'Fern' });
      const etag = await etagOf(gone);
      await remove(gone);

      const results = await Promise.all([
        removeWith(never, { 'if-match': header('"AAAAAAAAAAAAAAAAAAAAAA"') }),
        removeWith(gone, { 'if-match': header(etag) }),
      ]);

      for (const result of results) {
        expect(result.statusCode).toBe(412);
        expectErrorShape(bodyOf(result), 412);
      }
      expect(await stored(never)).toBeUndefined();
      expect(await stored(gone)).toBeUndefined();
    },
  );

  it('a plant stored before revisions existed: If-Match "0" deletes it', async () => {
    const id = api.freshId();
    await api.dynalite.putItem(api.tableName, { id: { N: id }, name: { S: 'Old' } });
    const kept = api.freshId();
    await api.dynalite.putItem(api.tableName, { id: { N: kept }, name: { S: 'Old' } });

    const matching = await removeWith(id, { 'if-match': '"0"' });
    const other = await removeWith(kept, { 'if-match': '"AAAAAAAAAAAAAAAAAAAAAA"' });

    expect(await etagOf(kept)).toBe('"0"');
    expect(matching.statusCode).toBe(204);
    expect(await stored(id)).toBeUndefined();
    expect(other.statusCode).toBe(412);
    expect(await stored(kept)).toStrictEqual(item(kept, 'Old'));
  });

  it('a plant created again after a delete is not the one whose ETag the client holds: 412', async () => {
    const id = api.freshId();
    await create(id, { name: 'Fern' });
    const etag = await etagOf(id);
    await remove(id);
    await create(id, { name: 'Fern' });

    const result = await removeWith(id, { 'if-match': etag });

    expect(result.statusCode).toBe(412);
    expect(await stored(id)).toStrictEqual(item(id, 'Fern'));
  });

  it('eight concurrent deletes with the same If-Match: exactly one 204, seven 412, and the plant is gone', async () => {
    const id = api.freshId();
    await create(id, { name: 'Contested' });
    const etag = await etagOf(id);

    const results = await Promise.all(
      Array.from({ length: 8 }, () => removeWith(id, { 'if-match': etag })),
    );

    const statuses = results.map(({ statusCode }) => statusCode).sort();
    expect(statuses).toStrictEqual([204, ...Array(7).fill(412)]);
    expect(await stored(id)).toBeUndefined();
  });

  it('a replace racing a delete with the read ETag: the delete wins whole or answers 412, never both lost', async () => {
    for (let round = 0; round < 10; round++) {
      const id = api.freshId();
      await create(id, { name: 'Fern' });
      const etag = await etagOf(id);

      const [deleted, replaced] = await Promise.all([
        removeWith(id, { 'if-match': etag }),
        replace(id, '{"name":"Palm"}', { 'if-match': etag }),
      ]);

      // Both named the same revision: exactly one of them acted on it.
      expect([deleted.statusCode, replaced.statusCode].sort()).toStrictEqual(
        deleted.statusCode === 204 ? [204, 404] : [200, 412],
      );
      expect(await stored(id)).toStrictEqual(
        deleted.statusCode === 204 ? undefined : item(id, 'Palm'),
      );
    }
  });

  it.each([
    ['an entity tag without quotes', { 'if-match': 'abc' }, /^If-Match must be/],
    ['an empty If-Match', { 'if-match': '' }, /^If-Match must be/],
    ['a no-break space beside the tag', { 'if-match': '"a"\u00a0' }, /^If-Match must be/],
    ['17 entity tags', { 'if-match': Array(17).fill('"a"').join(', ') }, /at most 16/],
    [
      'If-None-Match, which a delete does not evaluate',
      { 'if-none-match': '*' },
      /^If-None-Match is not supported here: send If-Match instead$/,
    ],
    [
      'a malformed If-None-Match',
      { 'if-none-match': 'abc' },
      /^If-None-Match is not supported here/,
    ],
    [
      'both headers',
      { 'if-match': '*', 'if-none-match': '*' },
      /^If-None-Match is not supported here/,
    ],
  ])(
    '%s: 400 naming the header, no store call, and the plant stays',
    async (_case, headers, message) => {
      const id = api.freshId();
      await create(id, { name: 'Kept' });
      const callsBefore = api.storeCalls();

      const result = await removeWith(id, headers);

      expect(result.statusCode).toBe(400);
      expect(result.headers).toStrictEqual(hygieneHeaders);
      expect((bodyOf(result) as { message: string }).message).toMatch(message);
      expect(api.storeCalls()).toBe(callsBefore);
      expect(await stored(id)).toStrictEqual(item(id, 'Kept'));
    },
  );

  it('the request line names a 412 changed and counts DeletesPreconditionFailed', async () => {
    const id = api.freshId();
    await create(id, { name: 'Kept' });
    api.logs.length = 0;

    await removeWith(id, { 'if-match': '"AAAAAAAAAAAAAAAAAAAAAA"' });

    expect(api.logs).toHaveLength(1);
    expect(api.logs[0]?.fields).toMatchObject({
      status: 412,
      outcome: 'changed',
      DeletesPreconditionFailed: 1,
    });
  });
});

describe('deletes and creates of one id', () => {
  it('after a delete, the same id can be created again with another name', async () => {
    const id = api.freshId();
    await create(id, { name: 'Basil', tag: 'herb' });
    await remove(id);

    const again = await create(id, { name: 'Mint' });

    expect(again.statusCode).toBe(200);
    expect(bodyOf(again)).toStrictEqual({ name: 'Mint' });
    expect(await stored(id)).toStrictEqual(item(id, 'Mint'));
  });

  it('concurrent deletes of one id: every one answers 204, exactly one of them found the plant', async () => {
    const id = api.freshId();
    await create(id, { name: 'Contested' });
    api.logs.length = 0;

    const results = await Promise.all(Array.from({ length: 8 }, () => remove(id)));

    expect(results.map(({ statusCode }) => statusCode)).toStrictEqual(Array(8).fill(204));
    const outcomes = api.logs.map(({ fields }) => fields.outcome).sort();
    expect(outcomes).toStrictEqual([...Array(7).fill('absent'), 'deleted']);
    expect(await stored(id)).toBeUndefined();
  });

  it('deletes racing creates of one id: each create is a whole plant or told to retry, and what is stored is whole', async () => {
    for (let round = 0; round < 10; round++) {
      const id = api.freshId();
      const plant = { name: `Raced ${round}`, tag: 'race' };

      const [created, deleted, createdAgain, deletedAgain] = await Promise.all([
        create(id, plant),
        remove(id),
        create(id, plant),
        remove(id),
      ]);

      for (const result of [created, createdAgain]) {
        if (result.statusCode === 200) {
          expect(bodyOf(result)).toStrictEqual(plant);
        } else {
          // The create's condition failed on the plant the other create wrote, and a delete
          // removed it before the read-back: nothing was written, and a retry settles it.
          expect(result.statusCode).toBe(503);
          expect(result.headers).toMatchObject({ 'retry-after': '1' });
          expectErrorShape(bodyOf(result), 503);
        }
      }
      expect([deleted.statusCode, deletedAgain.statusCode]).toStrictEqual([204, 204]);
      const after = await stored(id);
      expect([undefined, { ...item(id, plant.name), tag: { S: 'race' } }]).toContainEqual(after);
    }
  });
});

describe(`the request line of ${routeKey(operation)}`, () => {
  it('names a removed plant deleted, counts PlantsDeleted and records the store latency', async () => {
    const id = api.freshId();
    await create(id, { name: 'Logged' });
    api.logs.length = 0;

    await remove(id);

    expect(api.logs).toHaveLength(1);
    expect(api.logs[0]).toMatchObject({
      message: 'request',
      fields: {
        method: operation.method,
        path: requestPath(operation, { pathParameters: { id } }),
        status: 204,
        outcome: 'deleted',
        PlantsDeleted: 1,
      },
    });
    expect(api.logs[0]?.fields.StoreLatency).toBeTypeOf('number');
  });

  it('names an id that held no plant absent and counts DeletesAbsent, neither an error nor a delete', async () => {
    api.logs.length = 0;

    await remove(api.freshId());

    expect(api.logs[0]?.fields).toMatchObject({ status: 204, outcome: 'absent', DeletesAbsent: 1 });
    expect(api.logs[0]?.fields).not.toHaveProperty('PlantsDeleted');
    expect(api.logs[0]?.fields).not.toHaveProperty('Errors');
  });

  it('counts a non-canonical id under ValidationFailures', async () => {
    api.logs.length = 0;

    await remove('01');

    expect(api.logs[0]?.fields).toMatchObject({
      status: 400,
      outcome: 'invalid',
      ValidationFailures: 1,
    });
  });
});
