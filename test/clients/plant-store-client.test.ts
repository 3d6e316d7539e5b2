import { describe, expect, it } from 'vitest';
import {
  createPlantStoreClient,
  exactJson,
  listPlantPages,
  nextLinkTarget,
  type PlantListItem,
  PlantStoreError,
  parseExactJson,
} from '../../clients/plant-store-client.ts';
import { withBundledHandlers } from '../support/bundled-handlers.ts';
import { useTestApi } from '../support/local-api-fixture.ts';

describe('exactJson', () => {
  it.each([
    [{ id: 9223372036854775807n, name: 'Fern' }, '{"id":9223372036854775807,"name":"Fern"}'],
    [{ id: -9223372036854775808n, name: 'Fern' }, '{"id":-9223372036854775808,"name":"Fern"}'],
    [{ id: 1, name: 'Fern', tag: 'indoor' }, '{"id":1,"name":"Fern","tag":"indoor"}'],
  ])('writes %o as %s, bigints digit for digit', (body, text) => {
    const json = exactJson(body);

    expect(json).toBe(text);
  });
});

describe('parseExactJson', () => {
  it('reads integers beyond 2^53 as exact bigints and the rest as JSON.parse does', () => {
    const value = parseExactJson(
      '[{"id":9223372036854775807,"name":"Max"},{"id":-9007199254740993},{"id":12,"n":1.5e300}]',
    );

    expect(value).toStrictEqual([
      { id: 9223372036854775807n, name: 'Max' },
      { id: -9007199254740993n },
      { id: 12, n: 1.5e300 },
    ]);
  });
});

describe('nextLinkTarget', () => {
  it.each([
    ['</plants?limit=2&cursor=abc>; rel="next"', '/plants?limit=2&cursor=abc'],
    ['</plants?cursor=a>;rel=next', '/plants?cursor=a'],
    ['</a>; rel="prev", </b>; rel="next"', '/b'],
    ['</a>; title="x, <y>; rel=next"; rel="prev"', undefined],
    ['</a>; rel="start NEXT"', '/a'],
    ['</a>; rel="nextpage"', undefined],
    ['</a>; rel="prev"', undefined],
    ['', undefined],
    [null, undefined],
  ])('finds in %j the next target %j', (header, target) => {
    expect(nextLinkTarget(header)).toBe(target);
  });
});

describe('createPlantStoreClient', () => {
  const local = useTestApi(withBundledHandlers);

  it('creates a plant and returns the typed Plant', async () => {
    const client = createPlantStoreClient({ baseUrl: `${local.api.url}/`, token: local.token });

    const { data, error, response } = await client.POST('/plants', {
      body: { id: 1, name: 'Fern', tag: 'indoor' },
    });

    expect(response.status).toBe(200);
    expect(error).toBeUndefined();
    expect(data).toEqual({ name: 'Fern', tag: 'indoor' });
  });

  it('keeps int64 ids exact: 2^63-1 and 2^63-2 are two plants', async () => {
    const client = createPlantStoreClient({
      baseUrl: local.api.url,
      token: async () => local.token,
    });

    const first = await client.POST('/plants', { body: { id: 9223372036854775807n, name: 'Max' } });
    const second = await client.POST('/plants', {
      body: { id: 9223372036854775806n, name: 'Max-1' },
    });

    expect(first.data).toEqual({ name: 'Max' });
    expect(second.data).toEqual({ name: 'Max-1' });
  });

  it('returns the Error body as `error`, e.g. 401 without a token', async () => {
    const client = createPlantStoreClient({ baseUrl: local.api.url });

    const { data, error, response } = await client.POST('/plants', {
      body: { id: 2, name: 'Aloe' },
    });

    expect(response.status).toBe(401);
    expect(data).toBeUndefined();
    expect(error).toEqual({ error: 401, message: expect.any(String) });
  });

  it('lists every page, following Link, with exact int64 ids, and deletes a plant', async () => {
    const client = createPlantStoreClient({ baseUrl: local.api.url, token: local.token });
    const gone = 9223372036854775805n;
    const kept = -9223372036854775807n;
    const ids = [gone, kept, 41n, 42n, 43n];
    for (const id of ids) await client.POST('/plants', { body: { id, name: `Walk ${id}` } });

    const pages: PlantListItem[][] = [];
    for await (const page of listPlantPages(client, { limit: 2 })) pages.push(page);
    const deleted = await client.DELETE('/plants/{id}', { params: { path: { id: gone } } });
    const after: PlantListItem[] = [];
    for await (const page of listPlantPages(client)) after.push(...page);

    expect(pages.length).toBeGreaterThanOrEqual(3);
    expect(pages.every((page) => page.length <= 2)).toBe(true);
    const listed = pages.flat();
    for (const id of ids) {
      // A bigint beyond 2^53, a number within it, as JSON.parse would give it.
      const exact = Number.isSafeInteger(Number(id)) ? Number(id) : id;
      expect(listed.filter((plant) => String(plant.id) === String(id))).toStrictEqual([
        { id: exact, name: `Walk ${id}` },
      ]);
    }
    expect(new Set(listed.map((plant) => plant.id)).size).toBe(listed.length);
    expect(deleted.response.status).toBe(204);
    expect(deleted.error).toBeUndefined();
    expect(after.map((plant) => plant.id)).not.toContain(gone);
    expect(after.map((plant) => plant.id)).toContain(kept);
  });

  it('reads a plant with its ETag, and replaces it with If-Match: once, then 412 with the stale ETag', async () => {
    const client = createPlantStoreClient({ baseUrl: local.api.url, token: local.token });
    // Within 2^53: the id is answered as a number.
    const id = 9007199254740991;
    await client.POST('/plants', { body: { id, name: 'Fern', tag: 'indoor' } });

    const read = await client.GET('/plants/{id}', { params: { path: { id } } });
    const etag = read.response.headers.get('etag') ?? '';
    const replaced = await client.PUT('/plants/{id}', {
      params: { path: { id }, header: { 'If-Match': etag } },
      body: { name: 'Palm' },
    });
    const stale = await client.PUT('/plants/{id}', {
      params: { path: { id }, header: { 'If-Match': etag } },
      body: { name: 'Moss' },
    });
    const current = await client.GET('/plants/{id}', {
      params: {
        path: { id },
        header: { 'If-None-Match': replaced.response.headers.get('etag') ?? '' },
      },
    });

    expect(read.data).toStrictEqual({ id, name: 'Fern', tag: 'indoor' });
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
    expect(replaced.data).toStrictEqual({ id, name: 'Palm' });
    expect(stale.response.status).toBe(412);
    expect(stale.error).toStrictEqual({ error: 412, message: expect.any(String) });
    expect(current.response.status).toBe(304);
  });

  it('reads and replaces ids beyond 2^53 exactly: deleting by the read id removes that plant', async () => {
    const client = createPlantStoreClient({ baseUrl: local.api.url, token: local.token });
    const id = 9007199254740993n;
    const neighbour = 9007199254740992n;
    await client.POST('/plants', { body: { id, name: 'Odd' } });
    await client.POST('/plants', { body: { id: neighbour, name: 'Even' } });

    const read = await client.GET('/plants/{id}', { params: { path: { id } } });
    const replaced = await client.PUT('/plants/{id}', {
      params: { path: { id } },
      body: { name: 'Odd again' },
    });
    const readId = read.data?.id ?? 0;
    const deleted = await client.DELETE('/plants/{id}', { params: { path: { id: readId } } });
    const gone = await client.GET('/plants/{id}', { params: { path: { id } } });
    const kept = await client.GET('/plants/{id}', { params: { path: { id: neighbour } } });

    expect(read.data).toStrictEqual({ id, name: 'Odd' });
    expect(replaced.data).toStrictEqual({ id, name: 'Odd again' });
    expect(deleted.response.status).toBe(204);
    expect(gone.response.status).toBe(404);
    expect(kept.data).toStrictEqual({ id: neighbour, name: 'Even' });
  });

  it('parses every body by the same exact parser: one without a Content-Length, and an error', async () => {
    // A stand-in server: a Response built from text carries no Content-Length, as a chunked one.
    const answering = (status: number) => async () =>
      new Response(`{"id":9007199254740993,"status":${status}}`, {
        status,
        headers: { 'content-type': 'application/json' },
      });
    const ok = createPlantStoreClient({ baseUrl: 'http://plants.invalid', fetch: answering(200) });
    const refusing = createPlantStoreClient({
      baseUrl: 'http://plants.invalid',
      fetch: answering(409),
    });

    const read = await ok.GET('/plants/{id}', { params: { path: { id: 1 } } });
    const requested = await ok.request('get', '/plants/{id}', { params: { path: { id: 1 } } });
    const refused = await refusing.PUT('/plants/{id}', {
      params: { path: { id: 1 } },
      body: { name: 'Fern' },
    });

    expect(read.data).toStrictEqual({ id: 9007199254740993n, status: 200 });
    expect(requested.data).toStrictEqual({ id: 9007199254740993n, status: 200 });
    expect(refused.error).toStrictEqual({ id: 9007199254740993n, status: 409 });
  });

  it('throws PlantStoreError with the answer when a page is refused', async () => {
    const client = createPlantStoreClient({ baseUrl: local.api.url });

    const walk = listPlantPages(client).next();

    await expect(walk).rejects.toThrow(PlantStoreError);
    await expect(walk).rejects.toMatchObject({
      status: 401,
      body: { error: 401, message: expect.any(String) },
    });
  });
});
