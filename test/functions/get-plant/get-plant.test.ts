import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operation } from '../../../functions/get-plant/operation.ts';
import { operationNamed, routeKey } from '../../../functions/operations.ts';
import { expectErrorShape, hygieneHeaders, missingTokenAnswer } from '../../support/contract.ts';
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

const get = (id: string, headers: Record<string, string> = {}, token = read) =>
  api.handlers['get-plant'](
    fakeOperationEvent(operation, { pathParameters: { id } }, { token, headers }),
  );
const create = (id: string, plant: { name: string; tag?: string }) =>
  api.invoke(fakeEvent({ token: write, body: `{"id":${id},${JSON.stringify(plant).slice(1)}` }));
const readCaching = {
  'content-type': 'application/json',
  'cache-control': 'private, no-cache',
  'x-content-type-options': 'nosniff',
};

/** One case per answer the read can give, in the order of the API table. */
describe(`${routeKey(operation)}, answer by answer`, () => {
  it('a stored plant: 200, the plant as a list item has it, a strong ETag, private no-cache', async () => {
    const id = api.freshId();
    await create(id, { name: 'Fern', tag: 'indoor' });

    const result = await get(id);

    expect(result.statusCode).toBe(200);
    expect(result.headers).toStrictEqual({
      ...readCaching,
      etag: expect.stringMatching(/^"[A-Za-z0-9_-]{22}"$/),
    });
    expect(result.body).toBe(`{"id":${id},"name":"Fern","tag":"indoor"}`);
  });

  it('a plant without a tag answers without one, and its id as the exact int64 JSON number', async () => {
    const id = '9223372036854775807';
    await create(id, { name: 'Moss' });

    const result = await get(id);

    expect(result.body).toBe('{"id":9223372036854775807,"name":"Moss"}');
  });

  it('reads its own write: the ETag a replace answered is the one a read then gives', async () => {
    const id = api.freshId();
    await create(id, { name: 'Fern' });
    const replaced = await api.handlers['replace-plant'](
      fakeOperationEvent(
        operationNamed('replace-plant'),
        { pathParameters: { id }, body: '{"name":"Palm"}' },
        { token: write },
      ),
    );

    const result = await get(id);

    expect(bodyOf(result)).toStrictEqual({ id: Number(id), name: 'Palm' });
    expect(result.headers?.etag).toBe(replaced.headers?.etag);
  });

  it.each([
    ['its own ETag', (etag: string) => etag],
    ['its ETag made weak (weak comparison)', (etag: string) => `W/${etag}`],
    ['a list holding it', (etag: string) => `"other", ${etag}, W/"x"`],
    ['*', () => '*'],
  ])('If-None-Match with %s: 304, the ETag, private no-cache, no body', async (_case, header) => {
    const id = api.freshId();
    await create(id, { name: 'Fern' });
    const etag = String((await get(id)).headers?.etag ?? '');

    const result = await get(id, { 'if-none-match': header(etag) });

    expect(result).toStrictEqual({
      statusCode: 304,
      headers: { 'cache-control': 'private, no-cache', 'x-content-type-options': 'nosniff', etag },
    });
  });

  it('If-None-Match with an ETag the plant no longer has: 200 and the current plant', async () => {
    const id = api.freshId();
    await create(id, { name: 'Fern' });

    const result = await get(id, { 'if-none-match': '"AAAAAAAAAAAAAAAAAAAAAA"' });

    expect(result.statusCode).toBe(200);
  });

  it('an id no plant has: 404 in the error shape, no-store', async () => {
    const result = await get(api.freshId());

    expect(result.statusCode).toBe(404);
    expect(result.headers).toStrictEqual(hygieneHeaders);
    expectErrorShape(bodyOf(result), 404);
  });

  it('If-None-Match: * on an id no plant has: 404, not 304', async () => {
    expect((await get(api.freshId(), { 'if-none-match': '*' })).statusCode).toBe(404);
  });

  it.each(['01', '1.0', '+1', '-0', '1e3', '9223372036854775808', 'abc', ''])(
    'the id %j: 400 naming id',
    async (id) => {
      const result = await get(id);

      expect(result.statusCode).toBe(400);
      expect((bodyOf(result) as { message: string }).message).toMatch(/^id /);
    },
  );

  it.each([
    ['an entity tag without quotes', { 'if-none-match': 'abc' }, /^If-None-Match must be/],
    ['an empty header', { 'if-none-match': '' }, /^If-None-Match must be/],
    ['a quote inside a tag', { 'if-none-match': '"a"b"' }, /^If-None-Match must be/],
    ['17 entity tags', { 'if-none-match': Array(17).fill('"a"').join(',') }, /at most 16/],
    ['If-Match, which a read does not evaluate', { 'if-match': '*' }, /^If-Match is not supported/],
    ['both headers', { 'if-match': '*', 'if-none-match': '*' }, /^If-Match is not supported/],
  ])('%s: 400 naming the header, never a 5xx', async (_case, headers, message) => {
    const id = api.freshId();
    await create(id, { name: 'Fern' });

    const result = await get(id, headers);

    expect(result.statusCode).toBe(400);
    expect((bodyOf(result) as { message: string }).message).toMatch(message);
  });

  it('no token: 401 with the Bearer challenge; a write-only token: 403 insufficient_scope', async () => {
    const id = api.freshId();
    const missing = await api.handlers['get-plant'](
      fakeOperationEvent(operation, { pathParameters: { id } }),
    );
    const writeOnly = await get(id, {}, write);

    expect(missing.statusCode).toBe(401);
    expect(missing.headers).toStrictEqual(missingTokenAnswer.headers);
    expect(writeOnly.statusCode).toBe(403);
    expect(writeOnly.headers?.['www-authenticate']).toMatch(
      /insufficient_scope.*scope="plants\/read"$/,
    );
  });
});
