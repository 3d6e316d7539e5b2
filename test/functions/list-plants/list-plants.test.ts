import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageResponse } from '../../../functions/list-plants/list-plants.ts';
import { operation } from '../../../functions/list-plants/operation.ts';
import { operationNamed, routeKey } from '../../../functions/operations.ts';
import type { PlantId } from '../../../functions/plants/plant-id.ts';
import type { ListRequest } from '../../../functions/plants/plant-store.ts';
import { expectErrorShape, hygieneHeaders, missingTokenAnswer } from '../../support/contract.ts';
import {
  type BodilessEventOverrides,
  fakeEvent,
  fakeOperationEvent,
} from '../../support/fake-event.ts';
import { listedPlants, nextQuery, walkPages } from '../../support/list-pages.ts';
import { bodyOf, type PlantApiHarness, startPlantApi } from '../../support/plant-api-harness.ts';

/** A cursor the store wrapper below fails on as a bug would: the one way to reach "anything unexpected". */
const unexpectedFailure = 'unexpected-failure';

let api: PlantApiHarness;
/** The store's list calls, as the handler made them. */
const asked: ListRequest[] = [];
let read: string;
let write: string;

beforeAll(async () => {
  api = await startPlantApi({
    faultProxy: true,
    dynamodb: { maxAttempts: 2, backoffBaseMs: 5 },
    wrapStore: (store) => ({
      list: (request) => {
        asked.push(request);
        if (request.cursor === unexpectedFailure) throw new TypeError('store blew up unexpectedly');
        return store.list(request);
      },
    }),
  });
  [read, write] = await Promise.all([
    api.issuer.mint({ claims: { scope: 'plants/read' }, expiresIn: 3600 }),
    api.issuer.mint({ claims: { scope: 'plants/write' }, expiresIn: 3600 }),
  ]);
});
afterAll(() => api.close());

const listEvent = (query: string, overrides: BodilessEventOverrides) =>
  fakeOperationEvent(operation, { query }, overrides);
const list = (query = '', overrides: BodilessEventOverrides = { token: read }) =>
  api.handlers['list-plants'](listEvent(query, overrides));
/** A delete of `id`, by the delete's own route. */
const deleteEvent = (id: string, token: string) =>
  fakeOperationEvent(operationNamed('delete-plant'), { pathParameters: { id } }, { token });
/** Creates a plant through the create; the id is written as the JSON number it is. */
const create = async (id: string, plant: { name: string; tag?: string }) => {
  const body = `{"id":${id},${JSON.stringify(plant).slice(1)}`;
  const result = await api.invoke(fakeEvent({ token: write, body }));
  expect(result.statusCode, `${body} ${result.body}`).toBe(200);
};
const remove = async (id: string) => {
  const result = await api.handlers['delete-plant'](deleteEvent(id, write));
  expect(result.statusCode).toBe(204);
};
/** Creates `count` plants, a few at a time, and answers their ids. */
const createMany = async (count: number, name: string) => {
  const ids = Array.from({ length: count }, () => api.freshId());
  for (let at = 0; at < count; at += 5) {
    await Promise.all(ids.slice(at, at + 5).map((id) => create(id, { name })));
  }
  return ids;
};
const idsOf = (plants: readonly { id: string }[]) => plants.map(({ id }) => id);

/** One case per answer the list can give, in the order of the API table. */
describe(`${routeKey(operation)}, answer by answer`, () => {
  it('a token with plants/read: 200, an array of {id, name, tag?}, the exact int64 id as a JSON number, a tag only where one is stored', async () => {
    await create('9223372036854775807', { name: 'Largest', tag: 'edge' });
    await create('-9223372036854775808', { name: 'Smallest' });
    await create('9007199254740993', { name: 'Past 2^53' });

    const { pages, plants } = await walkPages(api.handlers['list-plants'], {
      query: 'limit=100',
      token: read,
    });

    for (const page of pages) {
      expect(page.headers).toMatchObject(hygieneHeaders);
    }
    expect(plants).toEqual(
      expect.arrayContaining([
        { id: '9223372036854775807', name: 'Largest', tag: 'edge' },
        { id: '-9223372036854775808', name: 'Smallest' },
        { id: '9007199254740993', name: 'Past 2^53' },
      ]),
    );
    const text = pages.map((page) => page.body).join('');
    expect(text).toContain('{"id":9223372036854775807,"name":"Largest","tag":"edge"}');
    expect(text).toContain('{"id":-9223372036854775808,"name":"Smallest"}');
    expect(text).toContain('{"id":9007199254740993,"name":"Past 2^53"}');
  });

  it('no limit: a page of 20, and a Link to the next page with limit=20 that answers 200', async () => {
    await createMany(25, 'Default page');

    const first = await list('');
    const next = nextQuery(first);
    const second = await list(next);

    expect(first.statusCode).toBe(200);
    expect(listedPlants(first)).toHaveLength(20);
    expect(next).toMatch(/^limit=20&cursor=[A-Za-z0-9_-]{39}$/);
    expect(second.statusCode).toBe(200);
    expect(asked.at(-1)).toStrictEqual({ limit: 20, cursor: next?.split('cursor=')[1] });
  });

  it('limit=100: the store is asked for a page of 100 at most', async () => {
    const result = await list('limit=100');

    expect(result.statusCode).toBe(200);
    expect(asked.at(-1)).toStrictEqual({ limit: 100, cursor: undefined });
  });

  it('the last page: 200 and no Link', async () => {
    const { pages } = await walkPages(api.handlers['list-plants'], {
      query: 'limit=7',
      token: read,
    });

    expect(pages.length).toBeGreaterThan(1);
    expect(pages.slice(0, -1).every((page) => page.headers?.link !== undefined)).toBe(true);
    expect(pages.at(-1)?.headers).not.toHaveProperty('link');
    expect(pages.at(-1)?.headers).toStrictEqual(hygieneHeaders);
  });

  it.each([
    ['0', 'limit=0'],
    ['-1', 'limit=-1'],
    ['1.5', 'limit=1.5'],
    ['abc', 'limit=abc'],
    ['2147483648', 'limit=2147483648'],
    ['101, past the maximum', 'limit=101'],
    ['empty', 'limit='],
    ['a leading zero', 'limit=05'],
  ])('limit %s: 400 naming limit, and the store is not asked', async (_case, query) => {
    const callsBefore = api.storeCalls();

    const result = await list(query);

    expect(result.statusCode).toBe(400);
    expect(result.headers).toStrictEqual(hygieneHeaders);
    expect(bodyOf(result)).toStrictEqual({
      error: 400,
      message: 'limit must be an integer from 1 to 100',
    });
    expect(api.storeCalls()).toBe(callsBefore);
  });

  it.each([
    ['limit', 'limit=5&limit=5'],
    ['limit', 'limit=5&limit=6'],
    ['cursor', 'limit=5&cursor=a&cursor=b'],
  ])('a repeated %s: 400 naming it, and the store is not asked', async (name, query) => {
    const callsBefore = api.storeCalls();

    const result = await list(query);

    expect(result.statusCode).toBe(400);
    expect(bodyOf(result)).toStrictEqual({
      error: 400,
      message: `${name} must be given at most once`,
    });
    expect(api.storeCalls()).toBe(callsBefore);
  });

  describe('a cursor this list did not issue for this limit: 400 naming cursor, revealing no key', () => {
    let issued: string;
    let foreign: string;
    let foreignAfter: PlantId;
    beforeAll(async () => {
      issued = nextQuery(await list('limit=2'))?.split('cursor=')[1] ?? '';
      const other = await startPlantApi();
      try {
        const otherToken = await other.issuer.mint({
          claims: { scope: 'plants/read plants/write' },
        });
        const ids = [other.freshId(), other.freshId(), other.freshId()];
        for (const id of ids) {
          await other.invoke(
            fakeEvent({ token: otherToken, body: `{"id":${id},"name":"Elsewhere"}` }),
          );
        }
        const page = await other.handlers['list-plants'](
          listEvent('limit=2', { token: otherToken }),
        );
        foreign = nextQuery(page)?.split('cursor=')[1] ?? '';
        foreignAfter = listedPlants(page).at(-1)?.id as PlantId;
      } finally {
        await other.close();
      }
    });
    const flipped = (cursor: string) =>
      `${cursor.slice(0, 20)}${cursor[20] === 'A' ? 'B' : 'A'}${cursor.slice(21)}`;

    it.each<[string, () => string, number, RegExp]>([
      ['garbage', () => 'not-a-cursor', 2, /^cursor is malformed/],
      ['empty', () => '', 2, /^cursor is malformed/],
      ['truncated', () => issued.slice(0, -1), 2, /^cursor is malformed/],
      ['padded', () => `${issued}=`, 2, /^cursor is malformed/],
      ['changed in one character', () => flipped(issued), 2, /^cursor was not issued by this list/],
      ['issued by another table', () => foreign, 2, /^cursor was not issued by this list/],
      ['issued for another limit', () => issued, 3, /^cursor belongs to pages of limit=2/],
      [
        'issued for limit=2, given no limit',
        () => issued,
        20,
        /^cursor belongs to pages of limit=2/,
      ],
    ])('%s', async (_case, cursor, limit, message) => {
      const query = `${limit === 20 ? '' : `limit=${limit}&`}cursor=${encodeURIComponent(cursor())}`;

      const result = await list(query);

      expect(result.statusCode).toBe(400);
      expect(result.headers).toStrictEqual(hygieneHeaders);
      expectErrorShape(bodyOf(result), 400);
      const { message: text } = bodyOf(result) as { message: string };
      expect(text).toMatch(message);
      expect(text).not.toContain(foreignAfter);
    });
  });

  it('no Authorization: 401 with a bare Bearer challenge, before the query is looked at', async () => {
    const callsBefore = api.storeCalls();

    const result = await list('limit=abc&cursor=x&cursor=y', {
      headers: { authorization: undefined },
    });

    expect(result.statusCode).toBe(401);
    expect(result.headers).toStrictEqual(missingTokenAnswer.headers);
    expect(bodyOf(result)).toStrictEqual(missingTokenAnswer.body);
    expect(api.storeCalls()).toBe(callsBefore);
  });

  it('an expired token: 401 with error="invalid_token", before the query is looked at', async () => {
    const expired = await api.issuer.mint({ claims: { scope: 'plants/read' }, expiresIn: -60 });

    const result = await list('limit=0', { token: expired });

    expect(result.statusCode).toBe(401);
    expect(result.headers?.['www-authenticate']).toMatch(/error="invalid_token"/);
    expect(bodyOf(result)).toStrictEqual({ error: 401, message: 'Token has expired' });
  });

  it('a token with plants/write only: 403 insufficient_scope naming plants/read, and the store is not asked', async () => {
    const callsBefore = api.storeCalls();

    const result = await list('limit=abc', { token: write });

    expect(result.statusCode).toBe(403);
    expect(result.headers).toStrictEqual({
      ...hygieneHeaders,
      'www-authenticate':
        'Bearer realm="plant-store", error="insufficient_scope", error_description="Token lacks the scope \'plants/read\'", scope="plants/read"',
    });
    expect(bodyOf(result)).toStrictEqual({
      error: 403,
      message: 'Token lacks the scope "plants/read"',
    });
    expect(api.storeCalls()).toBe(callsBefore);
  });

  it('a token with both scopes: 200', async () => {
    const both = await api.issuer.mint({ claims: { scope: 'plants/write plants/read' } });

    const result = await list('limit=1', { token: both });

    expect(result.statusCode).toBe(200);
  });

  it('the store throttled after retries: 503 with Retry-After', async () => {
    await api.proxy?.inject({ kind: 'dynamoError', status: 400, type: 'ThrottlingException' });

    const result = await list('limit=3');
    await api.proxy?.restore();

    expect(result.statusCode).toBe(503);
    expect(result.headers).toStrictEqual({ ...hygieneHeaders, 'retry-after': '1' });
    expect(bodyOf(result)).toStrictEqual({
      error: 503,
      message: 'The plant store is busy or unavailable, retry later',
    });
  });

  it('anything unexpected: 500, logged with the request id, the body saying nothing internal', async () => {
    api.logs.length = 0;

    const result = await list(`limit=3&cursor=${unexpectedFailure}`);

    expect(result.statusCode).toBe(500);
    expect(result.headers).toStrictEqual(hygieneHeaders);
    expect(bodyOf(result)).toStrictEqual({ error: 500, message: 'Internal server error' });
    expect(api.logs.find((line) => line.message === 'unexpected error')?.fields).toMatchObject({
      requestId: expect.stringMatching(/^test-request-/),
    });
  });
});

describe('a walk that follows the Link header', () => {
  it('lists every plant present during the whole walk exactly once, while others are created, deleted and re-created between its pages', async () => {
    const throughout = await createMany(30, 'Present throughout');
    const comeAndGo = await createMany(10, 'Deleted during the walk');
    const created: string[] = [];

    const { plants } = await walkPages(api.handlers['list-plants'], {
      query: 'limit=4',
      token: read,
      between: async (page) => {
        const fresh = await createMany(2, `Created after page ${page}`);
        created.push(...fresh);
        const gone = comeAndGo.pop();
        if (gone !== undefined) await remove(gone);
        if (page % 3 === 0 && created.length > 0) {
          const again = created[0] ?? '';
          await remove(again);
          await create(again, { name: 'Re-created' });
        }
      },
    });

    const listed = idsOf(plants);
    expect(new Set(listed).size, 'no plant twice').toBe(listed.length);
    for (const id of throughout) {
      expect(listed.filter((listedId) => listedId === id)).toStrictEqual([id]);
    }
    for (const plant of plants.filter(({ id }) => throughout.includes(id))) {
      expect(plant).toStrictEqual({ id: plant.id, name: 'Present throughout' });
    }
  });

  it('answers each page with exactly what the table holds: a walk with no writes lists the table once', async () => {
    const first = await walkPages(api.handlers['list-plants'], { query: 'limit=9', token: read });
    const second = await walkPages(api.handlers['list-plants'], { token: read });

    expect(idsOf(first.plants).sort()).toStrictEqual(idsOf(second.plants).sort());
    expect(new Set(idsOf(first.plants)).size).toBe(first.plants.length);
  });
});

/**
 * Items the API would not write, put into the table past it (a hand edit, another program): a
 * walk answers 200 with every plant, and names each damaged item in a warning line.
 */
describe('a walk over a table holding damaged items', () => {
  let damagedApi: PlantApiHarness;
  let token: string;
  const good = ['1', '2', '3', '4', '5', '6'];
  const damaged = [
    {
      item: { id: { N: '1.5' }, name: { S: 'Half' } },
      problem: 'its key is not an int64 in canonical form',
    },
    {
      item: { id: { N: '9223372036854775808' }, name: { S: 'Past int64' } },
      problem: 'its key is not an int64 in canonical form',
    },
    {
      item: { id: { N: '-99999999999999999999' }, name: { S: 'Far below' } },
      problem: 'its key is not an int64 in canonical form',
    },
    { item: { id: { N: '7' } }, problem: 'it has no name as text' },
    { item: { id: { N: '8' }, name: { N: '8' } }, problem: 'it has no name as text' },
    {
      item: { id: { N: '9' }, name: { S: 'Fern' }, tag: { N: '1' } },
      problem: 'its tag is not text',
    },
  ] as const;
  beforeAll(async () => {
    damagedApi = await startPlantApi();
    token = await damagedApi.issuer.mint({
      claims: { scope: 'plants/read plants/write' },
      expiresIn: 3600,
    });
    for (const id of good) {
      const result = await damagedApi.invoke(
        fakeEvent({ token, body: `{"id":${id},"name":"Plant ${id}"}` }),
      );
      expect(result.statusCode).toBe(200);
    }
    for (const { item } of damaged) await damagedApi.dynalite.putItem(damagedApi.tableName, item);
  });
  afterAll(() => damagedApi.close());

  it.each([1, 2, 3, 5, 20])(
    'limit=%i: every page 200, every plant once, each damaged item named in a warning line',
    async (limit) => {
      damagedApi.logs.length = 0;

      const { pages, plants } = await walkPages(damagedApi.handlers['list-plants'], {
        query: `limit=${limit}`,
        token,
      });

      expect(pages.every(({ statusCode }) => statusCode === 200)).toBe(true);
      expect(idsOf(plants).sort()).toStrictEqual(good);
      const warnings = damagedApi.logs.filter(({ level }) => level === 'warn');
      expect(warnings.length).toBeGreaterThan(0);
      for (const warning of warnings) {
        expect(warning).toMatchObject({
          message: 'damaged items skipped',
          fields: { requestId: expect.stringMatching(/^test-request-/), count: expect.any(Number) },
        });
      }
      const named = warnings.flatMap(({ fields }) => fields.items as { key: string }[]);
      for (const { item, problem } of damaged) {
        expect(named).toContainEqual({ key: item.id.N, problem });
      }
      // The request lines: each page listed, none an error.
      const requests = damagedApi.logs.filter(({ message }) => message === 'request');
      expect(requests.map(({ fields }) => fields.outcome)).toStrictEqual(pages.map(() => 'listed'));
    },
  );

  it('a damaged item whose key is an int64 can be deleted through the API, and is gone from the walk', async () => {
    const result = await damagedApi.handlers['delete-plant'](deleteEvent('7', token));
    damagedApi.logs.length = 0;

    await walkPages(damagedApi.handlers['list-plants'], { query: 'limit=100', token });

    expect(result.statusCode).toBe(204);
    const named = damagedApi.logs.flatMap(
      ({ fields }) => (fields.items ?? []) as { key: string }[],
    );
    expect(named.map(({ key }) => key)).not.toContain('7');
    await damagedApi.dynalite.putItem(damagedApi.tableName, damaged[3].item);
  });
});

describe(`the request line of ${routeKey(operation)}`, () => {
  it('names a page answered as listed, counts PlantsListed and records the store latency', async () => {
    api.logs.length = 0;

    await list('limit=2');

    expect(api.logs).toHaveLength(1);
    expect(api.logs[0]).toMatchObject({
      message: 'request',
      fields: {
        method: operation.method,
        path: operation.path,
        status: 200,
        outcome: 'listed',
        PlantsListed: 1,
      },
    });
    expect(api.logs[0]?.fields.StoreLatency).toBeTypeOf('number');
  });

  it.each<[string, () => APIGatewayProxyEventV2, object]>([
    ['a bad limit', () => listEvent('limit=0', { token: read }), { ValidationFailures: 1 }],
    ['a bad cursor', () => listEvent('cursor=x', { token: read }), { ValidationFailures: 1 }],
    ['a missing scope', () => listEvent('', { token: write }), { AuthFailures: 1 }],
  ])(
    'counts %s under the shared failure counters, never PlantsListed',
    async (_case, event, counter) => {
      api.logs.length = 0;

      await api.handlers['list-plants'](event());

      expect(api.logs.at(-1)?.fields).toMatchObject(counter);
      expect(api.logs.at(-1)?.fields).not.toHaveProperty('PlantsListed');
    },
  );
});

describe('pageResponse', () => {
  it('links the next page with the limit the cursor was issued for, path-absolute', () => {
    const response = pageResponse(
      { plants: [{ id: '5' as PlantId, name: 'Fern' }], next: 'C0ursor_-' },
      7,
    );

    expect(response).toStrictEqual({
      statusCode: 200,
      headers: {
        ...hygieneHeaders,
        link: `<${operation.path}?limit=7&cursor=C0ursor_->; rel="next"`,
      },
      body: '[{"id":5,"name":"Fern"}]',
    });
  });

  it('answers an empty page as an empty array without a Link', () => {
    expect(pageResponse({ plants: [] }, 20)).toStrictEqual({
      statusCode: 200,
      headers: hygieneHeaders,
      body: '[]',
    });
  });
});
