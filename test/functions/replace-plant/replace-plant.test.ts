import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operationNamed, routeKey } from '../../../functions/operations.ts';
import { operation } from '../../../functions/replace-plant/operation.ts';
import { expectErrorShape, hygieneHeaders } from '../../support/contract.ts';
import { fakeEvent, fakeOperationEvent } from '../../support/fake-event.ts';
import { bodyOf, type PlantApiHarness, startPlantApi } from '../../support/plant-api-harness.ts';

let api: PlantApiHarness;
let read: string;
let write: string;

beforeAll(async () => {
  api = await startPlantApi();
  [read, write] = await Promise.all([
    api.issuer.mint({ claims: { scope: 'plants/read' }, expiresIn: 3600 }),
    api.issuer.mint({ claims: { scope: 'plants/write' }, expiresIn: 3600 }),
  ]);
});
afterAll(() => api.close());

const replace = (
  id: string,
  body: string | undefined,
  headers: Record<string, string> = {},
  token = write,
) =>
  api.handlers['replace-plant'](
    fakeOperationEvent(
      operation,
      { pathParameters: { id }, ...(body === undefined ? {} : { body }) },
      { token, headers },
    ),
  );
const create = (id: string, plant: { name: string; tag?: string }) =>
  api.invoke(fakeEvent({ token: write, body: `{"id":${id},${JSON.stringify(plant).slice(1)}` }));
/** A read of the plant, by the read's own route. */
const readPlant = (id: string) =>
  api.handlers['get-plant'](
    fakeOperationEvent(operationNamed('get-plant'), { pathParameters: { id } }, { token: read }),
  );
const etagOf = async (id: string) => String((await readPlant(id)).headers?.etag ?? '');
const stored = (id: string) => api.dynalite.getItem(api.tableName, id);
const messageOf = (result: { body?: string }) => (bodyOf(result) as { message: string }).message;

/** One case per answer the replace can give, in the order of the API table. */
describe(`${routeKey(operation)}, answer by answer`, () => {
  it('a stored plant: 200, the plant as a list item has it, a new strong ETag, no-store', async () => {
    const id = api.freshId();
    await create(id, { name: 'Fern', tag: 'indoor' });
    const before = await etagOf(id);

    const result = await replace(id, '{"name":"Palm","tag":"outdoor"}');

    expect(result.statusCode).toBe(200);
    expect(result.body).toBe(`{"id":${id},"name":"Palm","tag":"outdoor"}`);
    expect(result.headers).toStrictEqual({
      ...hygieneHeaders,
      etag: expect.stringMatching(/^"[A-Za-z0-9_-]{22}"$/),
    });
    expect(String(result.headers?.etag)).not.toBe(before);
    expect(await stored(id)).toStrictEqual({
      id: { N: id },
      name: { S: 'Palm' },
      tag: { S: 'outdoor' },
    });
  });

  it('replaces: a body without a tag leaves the plant without one', async () => {
    const id = api.freshId();
    await create(id, { name: 'Fern', tag: 'indoor' });

    const result = await replace(id, '{"name":"Fern"}');

    expect(result.body).toBe(`{"id":${id},"name":"Fern"}`);
    expect(await stored(id)).toStrictEqual({ id: { N: id }, name: { S: 'Fern' } });
  });

  it.each([
    ['its current ETag', async (id: string) => etagOf(id)],
    ['a list holding its current ETag', async (id: string) => `"x", ${await etagOf(id)}`],
    ['*', async () => '*'],
  ])('If-Match with %s: 200', async (_case, header) => {
    const id = api.freshId();
    await create(id, { name: 'Fern' });

    const result = await replace(id, '{"name":"Palm"}', { 'if-match': await header(id) });

    expect(result.statusCode).toBe(200);
    expect(await stored(id)).toStrictEqual({ id: { N: id }, name: { S: 'Palm' } });
  });

  it.each([
    ['an ETag it had before a replace', async (_id: string, old: string) => old],
    [
      'its current ETag made weak (strong comparison)',
      async (id: string) => `W/${await etagOf(id)}`,
    ],
    ['an ETag no write made', async () => '"not-a-revision"'],
  ])('If-Match with %s: 412 in the error shape, and nothing changes', async (_case, header) => {
    const id = api.freshId();
    await create(id, { name: 'Fern' });
    const old = await etagOf(id);
    await replace(id, '{"name":"Moss"}');
    const current = await etagOf(id);

    const result = await replace(id, '{"name":"Palm"}', { 'if-match': await header(id, old) });

    expect(result.statusCode).toBe(412);
    expect(result.headers).toStrictEqual(hygieneHeaders);
    expectErrorShape(bodyOf(result), 412);
    expect(await stored(id)).toStrictEqual({ id: { N: id }, name: { S: 'Moss' } });
    expect(await etagOf(id)).toBe(current);
  });

  it('an id no plant has: 404, and nothing is created, whatever If-Match says', async () => {
    const id = api.freshId();

    const results = await Promise.all([
      replace(id, '{"name":"Ghost"}'),
      replace(id, '{"name":"Ghost"}', { 'if-match': '*' }),
      replace(id, '{"name":"Ghost"}', { 'if-match': '"AAAAAAAAAAAAAAAAAAAAAA"' }),
    ]);

    expect(results.map((result) => result.statusCode)).toStrictEqual([404, 404, 404]);
    for (const result of results) expectErrorShape(bodyOf(result), 404);
    expect(await stored(id)).toBeUndefined();
  });

  it("an id in the body exactly the path's is allowed; any other is a 400 naming id", async () => {
    const id = '9007199254740993';
    await create(id, { name: 'Fern' });

    const same = await replace(id, `{"id":${id},"name":"Palm"}`);
    const neighbour = await replace(id, '{"id":9007199254740992,"name":"Palm"}');
    const text = await replace(id, `{"id":"${id}","name":"Palm"}`);

    expect(same.statusCode).toBe(200);
    expect(neighbour.statusCode).toBe(400);
    expect(messageOf(neighbour)).toMatch(/^id must be the path's id/);
    expect(text.statusCode).toBe(400);
    expect(messageOf(text)).toMatch(/^id /);
  });

  it.each([
    ['no name', '{"tag":"x"}', /^name is required/],
    ['an empty name', '{"name":""}', /^name must not be empty/],
    ['a null tag', '{"name":"Fern","tag":null}', /^tag must be a string/],
    [
      'a name over 200 characters',
      JSON.stringify({ name: 'x'.repeat(201) }),
      /^name must be at most 200/,
    ],
    ['an array', '[]', /JSON object/],
    ['malformed JSON', '{"name":', /JSON/],
  ])('%s: 400 naming the field, and nothing changes', async (_case, body, message) => {
    const id = api.freshId();
    await create(id, { name: 'Fern' });

    const result = await replace(id, body);

    expect(result.statusCode).toBe(400);
    expect(messageOf(result)).toMatch(message);
    expect(await stored(id)).toStrictEqual({ id: { N: id }, name: { S: 'Fern' } });
  });

  it('the same 415 and 413 answers as a create', async () => {
    const id = api.freshId();
    await create(id, { name: 'Fern' });

    const text = await replace(id, '{"name":"Palm"}', { 'content-type': 'text/plain' });
    const large = await replace(id, JSON.stringify({ name: 'Palm', pad: 'x'.repeat(17_000) }));

    expect(text.statusCode).toBe(415);
    expect(large.statusCode).toBe(413);
    expect(await stored(id)).toStrictEqual({ id: { N: id }, name: { S: 'Fern' } });
  });

  it.each(['01', '1.0', '+1', '-0', '1e3', '9223372036854775808', 'abc'])(
    'the id %j: 400 naming id',
    async (id) => {
      const result = await replace(id, '{"name":"Palm"}');

      expect(result.statusCode).toBe(400);
      expect(messageOf(result)).toMatch(/^id /);
    },
  );

  it.each([
    ['an entity tag without quotes', { 'if-match': 'abc' }, /^If-Match must be/],
    ['17 entity tags', { 'if-match': Array(17).fill('"a"').join(', ') }, /at most 16/],
    [
      'If-None-Match, which a write does not evaluate',
      { 'if-none-match': '*' },
      /^If-None-Match is not supported/,
    ],
    [
      'both headers',
      { 'if-match': '*', 'if-none-match': '"a"' },
      /^If-None-Match is not supported/,
    ],
  ])('%s: 400 naming the header, and nothing changes', async (_case, headers, message) => {
    const id = api.freshId();
    await create(id, { name: 'Fern' });

    const result = await replace(id, '{"name":"Palm"}', headers);

    expect(result.statusCode).toBe(400);
    expect(messageOf(result)).toMatch(message);
    expect(await stored(id)).toStrictEqual({ id: { N: id }, name: { S: 'Fern' } });
  });

  it('a read-only token: 403 insufficient_scope, and nothing changes', async () => {
    const id = api.freshId();
    await create(id, { name: 'Fern' });

    const result = await replace(id, '{"name":"Palm"}', {}, read);

    expect(result.statusCode).toBe(403);
    expect(await stored(id)).toStrictEqual({ id: { N: id }, name: { S: 'Fern' } });
  });
});

describe(`${routeKey(operation)} with writers racing`, () => {
  it('twenty concurrent replaces with the same If-Match: exactly one 200, nineteen 412, and the 200 is stored', async () => {
    const id = api.freshId();
    await create(id, { name: 'Fern' });
    const etag = await etagOf(id);

    const results = await Promise.all(
      Array.from({ length: 20 }, (_, n) =>
        replace(id, `{"name":"Writer ${n}"}`, { 'if-match': etag }),
      ),
    );

    const statuses = results.map((result) => result.statusCode);
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    expect(statuses.filter((status) => status === 412)).toHaveLength(19);
    const winner = results.find((result) => result.statusCode === 200);
    expect(bodyOf(winner ?? {})).toStrictEqual({ id: Number(id), name: expect.any(String) });
    const { name } = bodyOf(winner ?? {}) as { name: string };
    expect(await stored(id)).toStrictEqual({ id: { N: id }, name: { S: name } });
    expect(await etagOf(id)).toBe(String(winner?.headers?.etag));
  });
});

describe(`${routeKey(operation)} beside the other operations`, () => {
  it("POST's replay compares with what is stored now: the old create is a 409, the new content a 200", async () => {
    const id = api.freshId();
    await create(id, { name: 'Fern', tag: 'indoor' });
    await replace(id, '{"name":"Palm"}');

    const old = await create(id, { name: 'Fern', tag: 'indoor' });
    const replay = await create(id, { name: 'Palm' });

    expect(old.statusCode).toBe(409);
    expect(replay.statusCode).toBe(200);
    expect(bodyOf(replay)).toStrictEqual({ name: 'Palm' });
  });

  it('after a delete, a read and a replace answer 404, and a create may use the id again', async () => {
    const id = api.freshId();
    await create(id, { name: 'Fern' });
    const etag = await etagOf(id);
    await api.handlers['delete-plant'](
      fakeOperationEvent(
        operationNamed('delete-plant'),
        { pathParameters: { id } },
        { token: write },
      ),
    );

    const replaced = await replace(id, '{"name":"Palm"}', { 'if-match': etag });
    const readBack = await readPlant(id);
    await create(id, { name: 'Fern' });
    const afterRecreate = await replace(id, '{"name":"Palm"}', { 'if-match': etag });

    expect(replaced.statusCode).toBe(404);
    expect(readBack.statusCode).toBe(404);
    // The plant created again is not the one whose ETag the client holds.
    expect(afterRecreate.statusCode).toBe(412);
  });

  it('a plant stored before revisions existed reads with ETag "0", and If-Match "0" replaces it once', async () => {
    const id = api.freshId();
    await api.dynalite.putItem(api.tableName, { id: { N: id }, name: { S: 'Old' } });

    const etag = await etagOf(id);
    const first = await replace(id, '{"name":"New"}', { 'if-match': etag });
    const second = await replace(id, '{"name":"Newer"}', { 'if-match': etag });

    expect(etag).toBe('"0"');
    expect(first.statusCode).toBe(200);
    expect(first.headers?.etag).not.toBe('"0"');
    expect(second.statusCode).toBe(412);
  });
});
