import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checksOf, operations } from '../../functions/operations.ts';
import { limits } from '../../functions/plants/new-plant.ts';
import {
  type ContractAnswer,
  expectContractAnswer,
  expectErrorShape,
  hygieneHeaders,
} from '../support/contract.ts';
import {
  fakeDeleteEvent,
  fakeEvent,
  fakeListEvent,
  fakeOperationEvent,
} from '../support/fake-event.ts';
import {
  hasForbiddenKey,
  jsonSpace,
  type NewPlantCase,
  newPlantCase,
  validText,
} from '../support/new-plant-arbitraries.ts';
import { bodyOf, type PlantApiHarness, startPlantApi } from '../support/plant-api-harness.ts';

/**
 * Runs per property. Pure-ish properties (most bodies never reach the store) run a few thousand
 * times; fast-check prints the seed and path of any failure, so `fc.assert(..., { seed, path })`
 * replays it. Set FC_NUM_RUNS to explore further.
 */
const runs = Number(process.env.FC_NUM_RUNS ?? 250);

let api: PlantApiHarness;
let token: string;
const freshId = () => api.freshId();

beforeAll(async () => {
  api = await startPlantApi();
  token = await api.issuer.mint({ expiresIn: 3600 });
});
afterAll(() => api.close());

const post = (body: string | undefined, overrides: Parameters<typeof fakeEvent>[0] = {}) =>
  api.invoke(fakeEvent({ token, body, ...overrides }));

/** What the contract says of a NewPlant-shaped body, given what is stored already. */
type Stored = Map<string, { name: string; tag?: string }>;

function expectedForCase(
  sample: NewPlantCase,
  stored: Stored,
):
  | { status: 200 | 409; id: string; plant: { name: string; tag?: string } }
  | {
      status: 400;
      fields: string[];
    } {
  if (hasForbiddenKey(JSON.parse(sample.body))) return { status: 400, fields: ['Request body'] };
  const invalid = (['id', 'name', 'tag'] as const).filter((field) => !sample[field].valid);
  if (invalid.length > 0) return { status: 400, fields: invalid };
  const { id, name, tag } = sample;
  if (!(id.present && id.valid && name.present && name.valid)) throw new Error('unreachable');
  const plant =
    tag.present && tag.valid ? { name: name.value, tag: tag.value } : { name: name.value };
  const key = id.value.toString();
  const before = stored.get(key);
  if (before === undefined) return { status: 200, id: key, plant };
  const same = before.name === plant.name && before.tag === plant.tag;
  return same ? { status: 200, id: key, plant: before } : { status: 409, id: key, plant: before };
}

/** The operations of the list that read a body: those whose sample request carries one. */
const bodyOperations = operations.filter(
  (operation) => checksOf(operation).sample.request('1').body !== undefined,
);
/** The runs of each arbitrary-body property, split between them so that the suite stays as quick. */
const bodyRuns = Math.ceil(runs / bodyOperations.length);

describe.each(bodyOperations)('$method $path ($name) with arbitrary bodies', (operation) => {
  let scoped: string;
  beforeAll(async () => {
    scoped = await api.issuer.mint({ claims: { scope: operation.scope }, expiresIn: 3600 });
  });
  /** Its sample request about a fresh id, with `body` instead of the sample's. */
  const send = (body: string, isBase64Encoded = false) => {
    const sample = checksOf(operation).sample.request(freshId());
    const event = fakeOperationEvent(operation, { ...sample, body }, { token: scoped });
    event.isBase64Encoded = isBase64Encoded;
    return api.handlers[operation.name](event);
  };
  /** A 2xx, or a 4xx the operation declares in the error shape, never 5xx nor 415. */
  const expectBodyAnswer = (result: APIGatewayProxyStructuredResultV2) => {
    const status = result.statusCode ?? 0;
    expect(operation.statuses.filter((declared) => declared !== 415)).toContain(status);
    if (status >= 400) {
      expect(result.headers).toMatchObject(hygieneHeaders);
      expectErrorShape(bodyOf(result), status);
    }
  };

  it('answers any JSON value with a 2xx or a 4xx {error, message}, never 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), jsonSpace, async (value, space) => {
        expectBodyAnswer(await send(`${space}${JSON.stringify(value)}${space}`));
      }),
      { numRuns: bodyRuns },
    );
  });

  it('answers arbitrary strings, near-JSON text and byte soup the same way', async () => {
    const nearJson = fc
      .tuple(
        fc.constantFrom('{"id":1,"name":"Fern","tag":"indoor"}', '{"id":-0,"name":"x"}'),
        fc.nat(),
        fc.string({ unit: 'binary', maxLength: 2 }),
        fc.nat({ max: 2 }),
      )
      .map(([text, at, insert, remove]) => {
        const cut = at % (text.length + 1);
        return `${text.slice(0, cut)}${insert}${text.slice(cut + remove)}`;
      });
    const body = fc.oneof(
      fc.string({ unit: 'binary' }),
      fc.string({ unit: 'grapheme' }),
      fc.string({ unit: 'binary-ascii' }),
      fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.from(bytes).toString('latin1')),
      nearJson,
    );

    await fc.assert(
      fc.asyncProperty(body, async (text) => {
        expectBodyAnswer(await send(text));
      }),
      { numRuns: bodyRuns },
    );
  });

  it('answers base64 bodies, valid or not, as their decoded text or with a 400', async () => {
    const base64Body = fc.oneof(
      fc.uint8Array({ maxLength: 96 }).map((bytes) => Buffer.from(bytes).toString('base64')),
      fc
        .string({ unit: 'binary', maxLength: 40 })
        .map((text) => Buffer.from(text, 'utf8').toString('base64')),
      fc.string({ unit: fc.constantFrom(...'ABCabc019+/=-_ \n'.split('')), maxLength: 24 }),
      // The sample's own body under another name: valid as far as the body goes.
      validText(30).map((name) => {
        const sample = JSON.parse(checksOf(operation).sample.request(freshId()).body ?? '{}');
        return Buffer.from(JSON.stringify({ ...sample, name })).toString('base64');
      }),
    );

    await fc.assert(
      fc.asyncProperty(base64Body, async (body) => {
        expectBodyAnswer(await send(body, true));
      }),
      { numRuns: bodyRuns },
    );
  });
});

describe('POST /plants with bodies around the size limit', () => {
  it('refuses a body with 413 exactly when its decoded size is over the limit, text or base64', async () => {
    const sized = fc.tuple(fc.integer({ min: -4, max: 4 }), fc.boolean(), fc.nat({ max: 2 }));

    await fc.assert(
      fc.asyncProperty(sized, async ([offset, base64, multiByte]) => {
        const size = limits.bodyMaxBytes + offset;
        const head = `{"id":${freshId()},"name":"Sized","pad":"${'é'.repeat(multiByte)}`;
        const text = `${head}${'x'.repeat(size - Buffer.byteLength(head) - 2)}"}`;
        expect(Buffer.byteLength(text)).toBe(size);

        const result = await post(base64 ? Buffer.from(text).toString('base64') : text, {
          isBase64Encoded: base64,
        });

        expectContractAnswer(result);
        expect(result.statusCode).toBe(size > limits.bodyMaxBytes ? 413 : 200);
      }),
      { numRuns: 200 },
    );
  });
});

describe('POST /plants with objects around NewPlant', () => {
  // A table of its own: ids here span all of int64, and the model must know every stored plant.
  let own: PlantApiHarness;
  let ownToken: string;
  const stored: Stored = new Map();
  beforeAll(async () => {
    own = await startPlantApi();
    ownToken = await own.issuer.mint({ expiresIn: 3600 });
  });
  afterAll(() => own.close());

  it('answers exactly as the rules say: 200 and stored, 409 and unchanged, or 400 naming a field', async () => {
    const seen = new Map<number, number>();

    await fc.assert(
      fc.asyncProperty(newPlantCase, async (sample) => {
        const expected = expectedForCase(sample, stored);

        const result = await own.invoke(fakeEvent({ token: ownToken, body: sample.body }));

        const answer: ContractAnswer = expectContractAnswer(result);
        expect(answer.status).toBe(expected.status);
        seen.set(answer.status, (seen.get(answer.status) ?? 0) + 1);
        if (expected.status === 400) {
          const { message } = (answer as { error: { message: string } }).error;
          expect(expected.fields.some((field) => message.startsWith(`${field} `))).toBe(true);
          return;
        }
        const item = await own.dynalite.getItem(own.tableName, expected.id);
        const { name, tag } = expected.plant;
        expect(item).toStrictEqual(
          tag === undefined
            ? { id: { N: expected.id }, name: { S: name } }
            : { id: { N: expected.id }, name: { S: name }, tag: { S: tag } },
        );
        if (expected.status === 200) {
          expect(answer).toStrictEqual({ status: 200, plant: expected.plant });
          stored.set(expected.id, expected.plant);
        }
      }),
      { numRuns: runs },
    );

    // The generator reaches every outcome, not only the easy 400s.
    expect([...seen.keys()].sort()).toStrictEqual([200, 400, 409]);
  });
});

describe('POST /plants with arbitrary header sets', () => {
  const casing = (text: string) =>
    fc
      .array(fc.boolean(), { minLength: text.length, maxLength: text.length })
      .map((upper) =>
        [...text].map((char, n) => (upper[n] ? char.toUpperCase() : char.toLowerCase())).join(''),
      );
  const parameter = fc.constantFrom(
    '',
    '; charset=utf-8',
    ';charset=UTF-8',
    '; charset="utf-8"',
    ' ; charset=utf-8',
    ';',
    '; q=0.9; x=y',
    '\t;\tcharset=utf-8',
  );
  const mediaType = fc.oneof(
    { weight: 4, arbitrary: casing('application/json') },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        'text/plain',
        'application/vnd.api+json',
        'application/jsonx',
        'application/json-seq',
        'application/x-www-form-urlencoded',
        'json',
        '',
        '*/*',
      ),
    },
    { weight: 1, arbitrary: fc.string({ maxLength: 20 }) },
  );
  type ContentType = { value: string | undefined; name: 'content-type' | 'Content-Type' };
  const contentType: fc.Arbitrary<ContentType> = fc.oneof(
    { weight: 1, arbitrary: fc.constant({ value: undefined, name: 'content-type' as const }) },
    {
      weight: 8,
      arbitrary: fc
        .record({
          type: mediaType,
          parameters: parameter,
          padding: fc.constantFrom('', ' ', '  ', '\t'),
          duplicate: fc.option(fc.constantFrom('application/json', 'text/plain'), { freq: 4 }),
          name: fc.constantFrom(
            'content-type' as const,
            'content-type' as const,
            'Content-Type' as const,
          ),
        })
        .map(({ type, parameters, padding, duplicate, name }) => ({
          name,
          value: `${padding}${type}${parameters}${padding}${duplicate === null ? '' : `, ${duplicate}`}`,
        })),
    },
  );
  type Authorization = {
    value: (token: string) => string | undefined;
    valid: boolean;
    name: string;
  };
  const authorization: fc.Arbitrary<Authorization> = fc.constantFrom<Authorization>(
    { name: 'authorization', valid: true, value: (t) => `Bearer ${t}` },
    { name: 'authorization', valid: true, value: (t) => `bearer ${t}` },
    { name: 'authorization', valid: true, value: (t) => `BEARER    ${t}` },
    { name: 'authorization', valid: true, value: (t) => ` Bearer ${t} ` },
    { name: 'authorization', valid: false, value: (t) => `Bearer ${t}, Bearer ${t}` },
    { name: 'authorization', valid: false, value: (t) => `Bearer ${t} ${t}` },
    { name: 'authorization', valid: false, value: (t) => `Bearer\t${t}` },
    { name: 'authorization', valid: false, value: (t) => `Token ${t}` },
    { name: 'authorization', valid: false, value: (t) => t },
    { name: 'authorization', valid: false, value: () => 'Bearer' },
    { name: 'authorization', valid: false, value: () => '' },
    { name: 'authorization', valid: false, value: () => undefined },
    { name: 'Authorization', valid: false, value: (t) => `Bearer ${t}` },
  );
  const otherHeaders = fc.dictionary(
    fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz-'.split('')), minLength: 1 }),
    fc.string({ maxLength: 30 }),
    { maxKeys: 5 },
  );

  it('authorizes first, then requires a JSON media type, then reads the body', async () => {
    await fc.assert(
      fc.asyncProperty(
        contentType,
        authorization,
        otherHeaders,
        fc.boolean(),
        async (type, auth, others, validBody) => {
          const headers: Record<string, string | undefined> = {
            'content-type': undefined,
            authorization: undefined,
          };
          for (const [name, value] of Object.entries(others)) {
            if (name !== 'content-type' && name !== 'authorization') headers[name] = value;
          }
          headers[type.name] = type.value;
          headers[auth.name] = auth.value(token);
          const body = validBody ? `{"id":${freshId()},"name":"Headed"}` : '{"id":1,"name":';
          const isJson =
            type.name === 'content-type' &&
            type.value?.split(';')[0]?.trim().toLowerCase() === 'application/json';

          const result = await api.invoke(fakeEvent({ body, headers }));

          const answer = expectContractAnswer(result);
          const expected = !auth.valid ? 401 : !isJson ? 415 : validBody ? 200 : 400;
          expect(answer.status).toBe(expected);
        },
      ),
      { numRuns: runs },
    );
  });
});

/** Text a query or path parameter may carry: digits and their look-alikes, signs, dots, spaces. */
const numberish = fc.oneof(
  fc.string({ unit: fc.constantFrom(...'0123456789-+.eE ,x'.split('')), maxLength: 22 }),
  fc.bigInt({ min: -(2n ** 64n), max: 2n ** 64n }).map(String),
  fc.bigInt({ min: -(2n ** 64n), max: 2n ** 64n }).map((value) => `0${value}`),
  fc.string({ maxLength: 8 }),
  fc.string({ unit: 'binary', maxLength: 8 }),
);

describe('GET /plants with arbitrary limits and cursors', () => {
  let reader: string;
  beforeAll(async () => {
    reader = await api.issuer.mint({ claims: { scope: 'plants/read' }, expiresIn: 3600 });
  });
  const list = (query: string) =>
    api.handlers['list-plants'](fakeListEvent(query, { token: reader }));

  it('answers 200 exactly for an integer from 1 to 100 in plain decimal, else 400 naming limit', async () => {
    await fc.assert(
      fc.asyncProperty(numberish, async (limit) => {
        const result = await list(`limit=${encodeURIComponent(limit)}`);

        const valid = /^\d+$/.test(limit) && String(Number(limit)) === limit && Number(limit) >= 1;
        const inRange = valid && Number(limit) <= 100;
        expect(result.headers).toMatchObject(hygieneHeaders);
        expect(result.statusCode, limit).toBe(inRange ? 200 : 400);
        if (!inRange) {
          expectErrorShape(bodyOf(result), 400);
          expect((bodyOf(result) as { message: string }).message).toMatch(/^limit /);
        }
      }),
      { numRuns: Math.ceil(runs / 4) },
    );
  });

  it('answers a cursor it did not issue with a 400 naming cursor, never a page or a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.string({ maxLength: 60 }), fc.base64String({ maxLength: 60 })),
        async (cursor) => {
          const result = await list(`limit=5&cursor=${encodeURIComponent(cursor)}`);

          expect(result.statusCode, cursor).toBe(400);
          expect(result.headers).toMatchObject(hygieneHeaders);
          expectErrorShape(bodyOf(result), 400);
          expect((bodyOf(result) as { message: string }).message).toMatch(/^cursor /);
        },
      ),
      { numRuns: runs },
    );
  });
});

describe('DELETE /plants/{id} with arbitrary ids', () => {
  /** Plants that a lenient reading of a non-canonical id would name. */
  const sentinels = ['0', '1', '10', '-1'];
  const restoreSentinels = () =>
    Promise.all(
      sentinels.map((id) => api.invoke(fakeEvent({ token, body: `{"id":${id},"name":"Kept"}` }))),
    );
  beforeAll(restoreSentinels);

  it('answers 204 exactly for a canonical int64, else 400 naming id, and touches no other plant', async () => {
    await fc.assert(
      fc.asyncProperty(numberish, async (id) => {
        const result = await api.handlers['delete-plant'](fakeDeleteEvent(id, { token }));

        const canonical = /^-?\d+$/.test(id) && BigInt.asIntN(64, BigInt(id)).toString() === id;
        expect(result.statusCode, JSON.stringify(id)).toBe(canonical ? 204 : 400);
        if (!canonical) {
          expect(result.headers).toMatchObject(hygieneHeaders);
          expectErrorShape(bodyOf(result), 400);
          expect((bodyOf(result) as { message: string }).message).toMatch(/^id /);
        }
        for (const sentinel of sentinels.filter((kept) => kept !== id)) {
          expect(await api.dynalite.getItem(api.tableName, sentinel)).toBeDefined();
        }
        if (sentinels.includes(id)) await restoreSentinels();
      }),
      { numRuns: Math.ceil(runs / 4) },
    );
  });
});

/** Every operation of the list whose path names a plant: the id in the path is read one way. */
describe.each(operations.filter((operation) => operation.path.includes('{id}')))(
  '$method $path ($name) with arbitrary ids in the path',
  (operation) => {
    it('answers a non-canonical id with 400 naming id, and a canonical one past that, never 5xx', async () => {
      const scoped = await api.issuer.mint({ claims: { scope: operation.scope } });
      await fc.assert(
        fc.asyncProperty(numberish, async (id) => {
          const sample = checksOf(operation).sample.request(api.freshId());
          const result = await api.handlers[operation.name](
            fakeOperationEvent(operation, { ...sample, pathParameters: { id } }, { token: scoped }),
          );

          const canonical = /^-?\d+$/.test(id) && BigInt.asIntN(64, BigInt(id)).toString() === id;
          expect(result.statusCode, JSON.stringify(id)).toBeLessThan(500);
          const message =
            result.statusCode === 400 ? (bodyOf(result) as { message: string }).message : '';
          if (canonical) expect(message, JSON.stringify(id)).not.toMatch(/^id /);
          else {
            expect(result.statusCode, JSON.stringify(id)).toBe(400);
            expect(message).toMatch(/^id /);
          }
        }),
        { numRuns: Math.ceil(runs / 4) },
      );
    });
  },
);
