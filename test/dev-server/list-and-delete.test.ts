import { beforeAll, describe, expect, it } from 'vitest';
import { nextLinkTarget, parseExactJson } from '../../clients/plant-store-client.ts';
import { expectErrorShape } from '../support/contract.ts';
import {
  clientCredentialsToken,
  createPlant,
  tokenRequest,
  useTestApi,
} from '../support/local-api-fixture.ts';
import { noSuchRoute, otherMethodRoutes } from '../support/unmatched-routes.ts';

type Item = { id: bigint | number; name: string; tag?: string };

/** The headers every answer of the API carries, a 204 included. */
function expectHygiene(response: Response): void {
  expect(response.headers.get('cache-control')).toBe('no-store');
  expect(response.headers.get('x-content-type-options')).toBe('nosniff');
}

/** A 400 `{error, message}` whose message names `field`. */
async function expectBadInput(response: Response, field: string): Promise<void> {
  expect(response.status).toBe(400);
  expectHygiene(response);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  const body = (await response.json()) as { message: string };
  expectErrorShape(body, 400);
  expect(body.message).toMatch(new RegExp(`\\b${field}\\b`));
}

describe('GET /plants and DELETE /plants/{id} over HTTP (the local API of npm start)', () => {
  const local = useTestApi();

  const auth = (bearer = local.token) => ({ authorization: `Bearer ${bearer}` });
  const list = (query = '', bearer = local.token) =>
    fetch(`${local.api.url}/plants${query}`, { headers: auth(bearer) });
  const remove = (id: string, bearer = local.token) =>
    fetch(`${local.api.url}/plants/${id}`, { method: 'DELETE', headers: auth(bearer) });
  const create = async (id: bigint | number, name: string, bearer = local.token) => {
    const response = await createPlant(local.api, bearer, `{"id":${id},"name":"${name}"}`);
    expect(response.status).toBe(200);
  };
  /** Every plant, walking from the first page to the last as the next links say. */
  const listAll = async (limit = 100): Promise<Item[]> => {
    const items: Item[] = [];
    let target: string | undefined = `/plants?limit=${limit}`;
    while (target !== undefined) {
      const response = await fetch(`${local.api.url}${target}`, { headers: auth() });
      expect(response.status).toBe(200);
      items.push(...(parseExactJson(await response.text()) as Item[]));
      target = nextLinkTarget(response.headers.get('link'));
    }
    return items;
  };
  const listed = async (id: bigint | number) =>
    (await listAll()).filter((item) => String(item.id) === String(id));

  describe('refuses a bad limit with 400 naming limit', () => {
    it.each([
      ['0', '?limit=0'],
      ['-1', '?limit=-1'],
      ['1.5', '?limit=1.5'],
      ['abc', '?limit=abc'],
      ['2147483648', '?limit=2147483648'],
      ['101, one over the maximum', '?limit=101'],
      ['empty', '?limit='],
      ['without a value', '?limit'],
      ['repeated', '?limit=1&limit=2'],
      ['repeated as the gateway joins it', '?limit=1,2'],
      ['repeated with the same value', '?limit=5&limit=5'],
      ['with a leading zero', '?limit=05'],
      ['with a sign', '?limit=%2B5'],
    ])('%s', async (_name, query) => {
      await expectBadInput(await list(query), 'limit');
    });
  });

  it('answers a page of at most limit plants, in an array, with a next link to follow', async () => {
    for (const id of [201, 202, 203]) await create(id, `Page ${id}`);

    const response = await list('?limit=2');

    expect(response.status).toBe(200);
    expectHygiene(response);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(((await response.json()) as unknown[]).length).toBeLessThanOrEqual(2);
    expect(response.headers.get('link')).toMatch(/^<\/plants\?limit=2&cursor=[\w-]+>; rel="next"$/);
  });

  describe('refuses a cursor it did not issue for this limit with 400 naming cursor', () => {
    let cursor: string;

    beforeAll(async () => {
      for (const id of [211, 212, 213]) await create(id, `Cursor ${id}`);
      const link = nextLinkTarget((await list('?limit=1')).headers.get('link'));
      cursor = new URL(link ?? '', local.api.url).searchParams.get('cursor') ?? '';
      expect(cursor).not.toBe('');
    });

    it('that is garbage', async () => {
      await expectBadInput(await list('?limit=1&cursor=garbage'), 'cursor');
    });

    it('that is cut short', async () => {
      await expectBadInput(await list(`?limit=1&cursor=${cursor.slice(0, -1)}`), 'cursor');
    });

    it('that was changed', async () => {
      const changed = `${cursor.slice(0, 5)}${cursor[5] === 'A' ? 'B' : 'A'}${cursor.slice(6)}`;

      await expectBadInput(await list(`?limit=1&cursor=${changed}`), 'cursor');
    });

    it('that belongs to pages of another limit, naming the limit it belongs to', async () => {
      const response = await list(`?limit=2&cursor=${cursor}`);

      await expectBadInput(response.clone(), 'cursor');
      expect(((await response.json()) as { message: string }).message).toContain('limit=1');
    });

    it('that is given twice', async () => {
      await expectBadInput(await list(`?limit=1&cursor=${cursor}&cursor=${cursor}`), 'cursor');
    });

    it('that is empty, and takes the same cursor with its own limit', async () => {
      await expectBadInput(await list('?limit=1&cursor='), 'cursor');
      expect((await list(`?limit=1&cursor=${cursor}`)).status).toBe(200);
    });
  });

  describe('refuses an id that is not an int64 in canonical form with 400 naming id, deleting nothing', () => {
    beforeAll(async () => {
      await create(1, 'One');
      await create(0, 'Zero');
    });

    it.each([
      '01',
      '1.0',
      '9223372036854775808',
      '-9223372036854775809',
      '-0',
      '+1',
      '1e0',
      '0x1',
      'abc',
      '%201',
      '1%20',
    ])('%s', async (id) => {
      await expectBadInput(await remove(id), 'id');

      expect(await listed(1)).toStrictEqual([{ id: 1, name: 'One' }]);
      expect(await listed(0)).toStrictEqual([{ id: 0, name: 'Zero' }]);
    });
  });

  it('lists every plant present throughout a walk exactly once while others are created and deleted', async () => {
    const base = 7_000_000_000_000_000_000n;
    const throughout = Array.from({ length: 30 }, (_, i) => base + BigInt(i) * 7919n);
    const goneDuring = Array.from({ length: 8 }, (_, i) => base + 1n + BigInt(i) * 104_729n);
    for (const id of [...throughout, ...goneDuring]) await create(id, `Walk ${id}`);
    const seen = new Map<string, number>();
    let target: string | undefined = '/plants?limit=4';
    let pages = 0;
    let churn = 0n;

    while (target !== undefined) {
      const response = await fetch(`${local.api.url}${target}`, { headers: auth() });
      expect(response.status).toBe(200);
      expectHygiene(response);
      const page = parseExactJson(await response.text()) as Item[];
      expect(page.length).toBeLessThanOrEqual(4);
      for (const item of page) seen.set(String(item.id), (seen.get(String(item.id)) ?? 0) + 1);
      const link = response.headers.get('link');
      if (link !== null) expect(link).toMatch(/^<\/plants\?limit=4&cursor=[\w-]+>; rel="next"$/);
      target = nextLinkTarget(link);
      pages += 1;
      // Between pages: two plants come, one of them goes again, and one that was there goes.
      churn += 1n;
      await create(base + 2n + churn * 1_000_003n, 'Churn');
      await create(-churn, 'Churn');
      expect((await remove(String(-churn))).status).toBe(204);
      const gone = goneDuring[pages - 1];
      if (gone !== undefined) expect((await remove(String(gone))).status).toBe(204);
    }

    expect(pages).toBeGreaterThanOrEqual(8);
    expect([...seen.values()].every((count) => count === 1)).toBe(true);
    for (const id of throughout) expect(seen.get(String(id))).toBe(1);
  });

  it('lists an id above 2^53 as the exact JSON number, and a plant without a tag with none', async () => {
    await create(9223372036854775807n, 'Max');
    await createPlant(
      local.api,
      local.token,
      '{"id":9223372036854775806,"name":"Below","tag":"indoor"}',
    );
    const texts: string[] = [];
    let target: string | undefined = '/plants?limit=3';

    while (target !== undefined) {
      const response = await fetch(`${local.api.url}${target}`, { headers: auth() });
      texts.push(await response.text());
      target = nextLinkTarget(response.headers.get('link'));
    }

    const body = texts.join('\n');
    expect(body).toContain('{"id":9223372036854775807,"name":"Max"}');
    expect(body).toContain('{"id":9223372036854775806,"name":"Below","tag":"indoor"}');
    expect(body).not.toContain('9223372036854776000');
  });

  it('answers 204 with no body to a delete, and the id takes another name afterwards', async () => {
    await create(42, 'Fern');

    const deleted = await remove('42');
    const recreated = await createPlant(
      local.api,
      local.token,
      '{"id":42,"name":"Rose","tag":"outdoor"}',
    );

    expect(deleted.status).toBe(204);
    expectHygiene(deleted);
    expect(deleted.headers.get('content-length')).toBeNull();
    expect(await deleted.text()).toBe('');
    expect(recreated.status).toBe(200);
    expect(await recreated.json()).toStrictEqual({ name: 'Rose', tag: 'outdoor' });
    expect(await listed(42)).toStrictEqual([{ id: 42, name: 'Rose', tag: 'outdoor' }]);
  });

  it('answers 204 to deleting an absent id, and to 10 concurrent deletes of one id', async () => {
    await create(43, 'Ivy');

    const absent = await remove('44');
    const concurrent = await Promise.all(Array.from({ length: 10 }, () => remove('43')));

    expect(absent.status).toBe(204);
    expect(concurrent.map((response) => response.status)).toStrictEqual(Array(10).fill(204));
    expect(await listed(43)).toStrictEqual([]);
  });

  it('deletes with If-Match only while the plant has that ETag: a stale one or an absent plant gets 412', async () => {
    await create(45, 'Fern');
    const read = (id: string) => fetch(`${local.api.url}/plants/${id}`, { headers: auth() });
    const stale = (await read('45')).headers.get('etag') ?? '';
    const replaced = await fetch(`${local.api.url}/plants/45`, {
      method: 'PUT',
      headers: { ...auth(), 'content-type': 'application/json' },
      body: '{"name":"Moss"}',
    });
    const current = replaced.headers.get('etag') ?? '';
    const removeIf = (id: string, ifMatch: string) =>
      fetch(`${local.api.url}/plants/${id}`, {
        method: 'DELETE',
        headers: { ...auth(), 'if-match': ifMatch },
      });

    const refused = await removeIf('45', stale);
    const absent = await removeIf('46', '*');
    const deleted = await removeIf('45', current);

    expect(refused.status).toBe(412);
    expectHygiene(refused);
    expectErrorShape(await refused.json(), 412);
    expect(absent.status).toBe(412);
    expectErrorShape(await absent.json(), 412);
    expect(deleted.status).toBe(204);
    expect(await deleted.text()).toBe('');
    expect(await listed(45)).toStrictEqual([]);
    expect(await listed(46)).toStrictEqual([]);
  });

  it.each([
    ['DELETE', '/plants/47', 'if-none-match', '*'],
    ['DELETE', '/plants/47', 'if-match', '"a"\u00a0'],
    ['GET', '/plants?limit=1', 'if-none-match', '*'],
    ['GET', '/plants?limit=1', 'if-match', '*'],
  ])(
    'answers %s %s with %s: %j, a precondition it does not evaluate or a malformed one, with 400 naming it',
    async (method, path, header, value) => {
      await create(47, 'Kept');

      const response = await fetch(`${local.api.url}${path}`, {
        method,
        headers: { ...auth(), [header]: value },
      });

      await expectBadInput(response, header === 'if-match' ? 'If-Match' : 'If-None-Match');
      expect(await listed(47)).toStrictEqual([{ id: 47, name: 'Kept' }]);
    },
  );

  it('answers a create with If-None-Match: * with 400 naming it, and creates nothing', async () => {
    const response = await fetch(`${local.api.url}/plants`, {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/json', 'if-none-match': '*' },
      body: '{"id":48,"name":"Sage"}',
    });

    await expectBadInput(response, 'If-None-Match');
    expect(await listed(48)).toStrictEqual([]);
  });

  it.each([
    ...otherMethodRoutes().map(({ method, path }) => [method, path]),
    ['HEAD', '/plants'],
    ['DELETE', '/plants/'],
    ['DELETE', `${noSuchRoute}/1/2`],
  ])(
    'answers %s %s with the HTTP API 404 {"message":"Not Found"}, not a 405',
    async (method, path) => {
      const response = await fetch(`${local.api.url}${path}`, { method, headers: auth() });

      expect(response.status).toBe(404);
      expect(response.headers.get('allow')).toBeNull();
      if (method !== 'HEAD') expect(await response.json()).toStrictEqual({ message: 'Not Found' });
    },
  );

  describe('scopes', () => {
    const tokenWith = async (scope: string) => {
      const response = await fetch(`${local.api.url}/oauth2/token`, {
        ...tokenRequest,
        body: `${tokenRequest.body}&scope=${encodeURIComponent(scope)}`,
      });
      return ((await response.json()) as { access_token: string }).access_token;
    };
    const expectInsufficientScope = async (response: Response, scope: string) => {
      expect(response.status).toBe(403);
      expectHygiene(response);
      expect(response.headers.get('www-authenticate')).toMatch(
        new RegExp(`error="insufficient_scope".*scope="${scope}"`),
      );
      expectErrorShape(await response.json(), 403);
    };

    it('lets a read-only token list, and answers its create and delete with 403, deleting nothing', async () => {
      await create(51, 'Moss');
      const readOnly = await tokenWith('plants/read');

      const listing = await list('?limit=1', readOnly);
      const creating = await createPlant(local.api, readOnly, '{"id":52,"name":"Sage"}');
      const deleting = await remove('51', readOnly);

      expect(listing.status).toBe(200);
      await expectInsufficientScope(creating, 'plants/write');
      await expectInsufficientScope(deleting, 'plants/write');
      expect(await listed(51)).toStrictEqual([{ id: 51, name: 'Moss' }]);
      expect(await listed(52)).toStrictEqual([]);
    });

    it('lets a write-only token create and delete, and answers its list with 403', async () => {
      const writeOnly = await tokenWith('plants/write');

      const creating = await createPlant(local.api, writeOnly, '{"id":53,"name":"Mint"}');
      const deleting = await remove('53', writeOnly);
      const listing = await list('', writeOnly);

      expect(creating.status).toBe(200);
      expect(deleting.status).toBe(204);
      await expectInsufficientScope(listing, 'plants/read');
    });

    it('gives a token with both scopes when none is asked for', async () => {
      const both = await clientCredentialsToken(local.api);

      expect((await list('', both)).status).toBe(200);
      expect((await remove('54', both)).status).toBe(204);
    });

    it.each([
      ['GET', '/plants?limit=0'],
      ['DELETE', '/plants/01'],
      ['DELETE', '/plants/1'],
    ])(
      'answers %s %s without a token with 401 before looking at the request',
      async (method, path) => {
        const response = await fetch(`${local.api.url}${path}`, { method });

        expect(response.status).toBe(401);
        expect(response.headers.get('www-authenticate')).toMatch(/^Bearer realm="plant-store"/);
        expectErrorShape(await response.json(), 401);
      },
    );
  });
});
