import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeEvent } from '../../support/fake-event.ts';
import { bodyOf, type PlantApiHarness, startPlantApi } from '../../support/plant-api-harness.ts';

let api: PlantApiHarness;
let token: string;
const freshId = () => api.freshId();

beforeAll(async () => {
  api = await startPlantApi();
  token = await api.issuer.mint();
});
afterAll(() => api.close());

const create = (body: string, overrides: Parameters<typeof fakeEvent>[0] = {}) =>
  api.invoke(fakeEvent({ token, body, ...overrides }));

describe('POST /plants with a valid token and a valid NewPlant', () => {
  it('answers 200 with exactly the Plant (name and tag, never id) and stores it', async () => {
    const id = freshId();

    const result = await create(`{"id":${id},"name":"Fern","tag":"indoor"}`);

    expect(result.statusCode).toBe(200);
    expect(result.headers).toMatchObject({
      'content-type': 'application/json',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
    });
    expect(bodyOf(result)).toStrictEqual({ name: 'Fern', tag: 'indoor' });
    expect(await api.dynalite.getItem(api.tableName, id)).toStrictEqual({
      id: { N: id },
      name: { S: 'Fern' },
      tag: { S: 'indoor' },
    });
  });

  it('answers a plant without a tag with only its name', async () => {
    const result = await create(`{"id":${freshId()},"name":"Cactus"}`);

    expect(result.statusCode).toBe(200);
    expect(bodyOf(result)).toStrictEqual({ name: 'Cactus' });
  });

  it('ignores unknown fields and never echoes them', async () => {
    const id = freshId();

    const result = await create(`{"id":${id},"name":"Ivy","colour":"green","nested":{"id":5}}`);

    expect(bodyOf(result)).toStrictEqual({ name: 'Ivy' });
    expect(await api.dynalite.getItem(api.tableName, id)).toStrictEqual({
      id: { N: id },
      name: { S: 'Ivy' },
    });
  });

  it('accepts a token signed with ES256 as well as RS256', async () => {
    const es256 = await api.issuer.mint({ alg: 'ES256' });

    const result = await api.invoke(
      fakeEvent({ token: es256, body: `{"id":${freshId()},"name":"Moss"}` }),
    );

    expect(result.statusCode).toBe(200);
  });
});

describe('exact int64 ids', () => {
  it('keeps 9223372036854775807 and 9223372036854775806 as two plants', async () => {
    const max = await create('{"id":9223372036854775807,"name":"Max"}');
    const belowMax = await create('{"id":9223372036854775806,"name":"Below max"}');

    expect([max.statusCode, belowMax.statusCode]).toStrictEqual([200, 200]);
    expect(await api.dynalite.getItem(api.tableName, '9223372036854775807')).toMatchObject({
      name: { S: 'Max' },
    });
    expect(await api.dynalite.getItem(api.tableName, '9223372036854775806')).toMatchObject({
      name: { S: 'Below max' },
    });
  });

  it('stores the smallest int64 exactly', async () => {
    const result = await create('{"id":-9223372036854775808,"name":"Min"}');

    expect(result.statusCode).toBe(200);
    expect(await api.dynalite.getItem(api.tableName, '-9223372036854775808')).toMatchObject({
      name: { S: 'Min' },
    });
  });

  it.each([
    ['9223372036854775808', 'id must be between -9223372036854775808 and 9223372036854775807'],
    ['-9223372036854775809', 'id must be between -9223372036854775808 and 9223372036854775807'],
    ['1.5', 'id must be an integer'],
    ['"1"', 'id must be an integer'],
    ['null', 'id must be an integer'],
    ['true', 'id must be an integer'],
  ])('answers 400 for id %s', async (id, message) => {
    const result = await create(`{"id":${id},"name":"Fern"}`);

    expect(result.statusCode).toBe(400);
    expect(bodyOf(result)).toStrictEqual({ error: 400, message });
  });
});

describe('idempotent replays and conflicts', () => {
  it('answers an identical replay with 200 and the stored Plant', async () => {
    const body = `{"id":${freshId()},"name":"Basil","tag":"herb"}`;
    await create(body);

    const replay = await create(body);

    expect(replay.statusCode).toBe(200);
    expect(bodyOf(replay)).toStrictEqual({ name: 'Basil', tag: 'herb' });
  });

  it.each([
    ['a different name', '{"name":"Mint","tag":"herb"}'],
    ['a different tag', '{"name":"Basil","tag":"kitchen"}'],
    ['the stored tag left out', '{"name":"Basil"}'],
  ])('answers 409 for %s and leaves the stored plant unchanged', async (_case, fields) => {
    const id = freshId();
    await create(`{"id":${id},"name":"Basil","tag":"herb"}`);

    const conflict = await create(`{"id":${id},${fields.slice(1)}`);

    expect(conflict.statusCode).toBe(409);
    expect(bodyOf(conflict)).toStrictEqual({
      error: 409,
      message: `A different plant with id ${id} already exists`,
    });
    expect(await api.dynalite.getItem(api.tableName, id)).toStrictEqual({
      id: { N: id },
      name: { S: 'Basil' },
      tag: { S: 'herb' },
    });
  });

  it('answers 409 when a replay adds a tag the stored plant does not have', async () => {
    const id = freshId();
    await create(`{"id":${id},"name":"Sage"}`);

    const conflict = await create(`{"id":${id},"name":"Sage","tag":"herb"}`);

    expect(conflict.statusCode).toBe(409);
    expect(await api.dynalite.getItem(api.tableName, id)).toStrictEqual({
      id: { N: id },
      name: { S: 'Sage' },
    });
  });

  it('lets exactly one of many concurrent different creates of one id win', async () => {
    const id = freshId();

    const results = await Promise.all(
      Array.from({ length: 20 }, (_, n) => create(`{"id":${id},"name":"Racer ${n}"}`)),
    );

    const statuses = results.map((result) => result.statusCode);
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    expect(statuses.filter((status) => status === 409)).toHaveLength(19);
    const winner = bodyOf(results[statuses.indexOf(200)] ?? { statusCode: 0 });
    expect(await api.dynalite.getItem(api.tableName, id)).toMatchObject({
      name: { S: (winner as { name: string }).name },
    });
  });
});

describe('authorization comes before the body', () => {
  it.each([
    ['no Authorization header', undefined, 'Bearer realm="plant-store"'],
    ['a Basic credential', 'Basic dXNlcjpwYXNz', 'error="invalid_request"'],
    ['"Bearer" with no token', 'Bearer', 'error="invalid_request"'],
    ['two tokens', 'Bearer abc def', 'error="invalid_request"'],
    ['a token that is not a JWT', 'Bearer not-a-jwt', 'error="invalid_token"'],
  ])('answers 401 for %s, even with a malformed body', async (_case, authorization, challenge) => {
    const result = await api.invoke(
      fakeEvent({ body: '{not json', headers: { authorization, 'content-type': 'text/plain' } }),
    );

    expect(result.statusCode).toBe(401);
    expect(result.headers?.['www-authenticate']).toContain(challenge);
    expect(bodyOf(result)).toMatchObject({ error: 401 });
  });

  it('accepts the scheme word in any case and several spaces before the token', async () => {
    const result = await api.invoke(
      fakeEvent({
        body: `{"id":${freshId()},"name":"Case"}`,
        headers: { authorization: `bEaReR   ${token}` },
      }),
    );

    expect(result.statusCode).toBe(200);
  });

  it.each([
    ['an expired token', { expiresIn: -60 }, 'Token has expired'],
    [
      'a token not yet valid',
      { claims: { nbf: Math.floor(Date.now() / 1000) + 600 } },
      'Token is not yet valid',
    ],
    [
      'a token from another issuer',
      { issuer: 'https://evil.example' },
      'Token issuer is not trusted',
    ],
    [
      'a token signed by an unknown key',
      { unpublishedKey: true },
      'Token signing key is not known',
    ],
    ['an ID token', { claims: { token_use: 'id' } }, 'Token is not an access token'],
  ])('answers 401 invalid_token for %s', async (_case, options, message) => {
    const bad = await api.issuer.mint(options);

    const result = await api.invoke(
      fakeEvent({ token: bad, body: `{"id":${freshId()},"name":"X"}` }),
    );

    expect(result.statusCode).toBe(401);
    expect(bodyOf(result)).toStrictEqual({ error: 401, message });
    expect(result.headers?.['www-authenticate']).toBe(
      `Bearer realm="plant-store", error="invalid_token", error_description="${message}"`,
    );
  });

  it('answers 401 for alg none and for a tampered signature', async () => {
    const [header = '', payload = '', signature = ''] = token.split('.');
    const none = `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${payload}.`;
    const tampered = `${header}.${payload}.${signature.slice(0, -4)}AAAA`;

    for (const bad of [none, tampered]) {
      const result = await api.invoke(fakeEvent({ token: bad, body: '{"id":1,"name":"X"}' }));
      expect(result.statusCode).toBe(401);
      expect(result.headers?.['www-authenticate']).toContain('error="invalid_token"');
    }
  });

  it('answers 403 insufficient_scope for a valid token without plants/write', async () => {
    const readOnly = await api.issuer.mint({ claims: { scope: 'plants/read plants/writer' } });

    const result = await api.invoke(fakeEvent({ token: readOnly, body: '{"id":1,"name":"X"}' }));

    expect(result.statusCode).toBe(403);
    expect(bodyOf(result)).toStrictEqual({
      error: 403,
      message: 'Token lacks the scope "plants/write"',
    });
    expect(result.headers?.['www-authenticate']).toContain('error="insufficient_scope"');
    expect(result.headers?.['www-authenticate']).toContain('scope="plants/write"');
  });

  it('accepts the scope from an Okta-style scp array', async () => {
    const okta = await api.issuer.mint({
      claims: { scope: undefined, scp: ['plants/read', 'plants/write'] },
    });

    const result = await api.invoke(
      fakeEvent({ token: okta, body: `{"id":${freshId()},"name":"Okta"}` }),
    );

    expect(result.statusCode).toBe(200);
  });

  it('never reaches the store without a valid token', async () => {
    const before = api.storeCalls();

    await api.invoke(
      fakeEvent({ body: '{"id":77,"name":"X"}', headers: { authorization: undefined } }),
    );
    await api.invoke(
      fakeEvent({ token: await api.issuer.mint({ expiresIn: -60 }), body: '{"id":77,"name":"X"}' }),
    );

    expect(api.storeCalls()).toBe(before);
    expect(await api.dynalite.getItem(api.tableName, '77')).toBeUndefined();
  });
});

describe('audience', () => {
  it('accepts a matching aud or client_id and refuses any other', async () => {
    const strict = await startPlantApi({ audiences: ['plant-store-api', 'cli-client'] });
    try {
      const byAud = await strict.issuer.mint({
        claims: { aud: 'plant-store-api', client_id: undefined },
      });
      const byClientId = await strict.issuer.mint({ claims: { client_id: 'cli-client' } });
      const other = await strict.issuer.mint({
        claims: { aud: 'someone-else', client_id: 'other' },
      });

      const answers = await Promise.all(
        [byAud, byClientId, other].map((bearer, n) =>
          strict.invoke(fakeEvent({ token: bearer, body: `{"id":${n},"name":"A"}` })),
        ),
      );

      expect(answers.map((answer) => answer.statusCode)).toStrictEqual([200, 200, 401]);
      expect(bodyOf(answers[2] ?? { statusCode: 0 })).toMatchObject({
        message: 'Token audience is not accepted',
      });
    } finally {
      await strict.close();
    }
  });
});

describe('body and content type', () => {
  it.each([
    ['malformed JSON', '{"id":1,', 'Request body is not valid JSON'],
    ['an empty body', '', 'Request body is required'],
    ['an array', '[1,2]', 'Request body must be a JSON object'],
    ['a string', '"plant"', 'Request body must be a JSON object'],
    ['null', 'null', 'Request body must be a JSON object'],
    ['a missing name', '{"id":1}', 'name is required'],
    ['a null name', '{"id":1,"name":null}', 'name must be a string'],
    ['a numeric name', '{"id":1,"name":5}', 'name must be a string'],
    ['an empty name', '{"id":1,"name":""}', 'name must not be empty'],
    ['a null tag', '{"id":1,"name":"Fern","tag":null}', 'tag must be a string'],
    ['a missing id', '{"name":"Fern"}', 'id is required'],
    [
      'a __proto__ key',
      '{"__proto__":{"x":1},"id":1,"name":"Fern"}',
      'Request body must not contain the key "__proto__"',
    ],
  ])('answers 400 naming the problem for %s', async (_case, body, message) => {
    const result = await create(body);

    expect(result.statusCode).toBe(400);
    expect(bodyOf(result)).toStrictEqual({ error: 400, message });
  });

  it('accepts unknown fields nested 64 levels deep and refuses 65 before parsing', async () => {
    const nested = (levels: number) =>
      `{"id":${freshId()},"name":"Deep","x":${'['.repeat(levels - 1)}"]["${']'.repeat(levels - 1)}}`;

    const deepest = await create(nested(64));
    const tooDeep = await create(nested(65));

    expect(deepest.statusCode).toBe(200);
    expect(bodyOf(tooDeep)).toStrictEqual({
      error: 400,
      message: 'Request body must not nest more than 64 levels',
    });
  });

  it('answers 400 for a missing body', async () => {
    const result = await api.invoke(fakeEvent({ token, body: undefined }));

    expect(bodyOf(result)).toStrictEqual({ error: 400, message: 'Request body is required' });
  });

  it.each([['application/json; charset=utf-8'], ['Application/JSON']])(
    'accepts the content type %s',
    async (contentType) => {
      const result = await create(`{"id":${freshId()},"name":"Typed"}`, {
        headers: { 'content-type': contentType },
      });

      expect(result.statusCode).toBe(200);
    },
  );

  it.each([
    ['missing', undefined],
    ['text/plain', 'text/plain'],
    ['a JSON suffix type', 'application/vnd.api+json'],
    ['form data', 'application/x-www-form-urlencoded'],
  ])('answers 415 when the content type is %s', async (_case, contentType) => {
    const result = await create(`{"id":${freshId()},"name":"Fern"}`, {
      headers: { 'content-type': contentType },
    });

    expect(result.statusCode).toBe(415);
    expect(bodyOf(result)).toStrictEqual({
      error: 415,
      message: 'Content-Type must be application/json',
    });
  });

  it('answers 413 for a body over 16 KiB', async () => {
    const result = await create(`{"id":1,"name":"Fern","padding":"${'x'.repeat(16 * 1024)}"}`);

    expect(result.statusCode).toBe(413);
    expect(bodyOf(result)).toStrictEqual({
      error: 413,
      message: 'Request body must be at most 16384 bytes',
    });
  });

  it('decodes a base64 body and refuses one that is not UTF-8', async () => {
    const id = freshId();
    const good = Buffer.from(`{"id":${id},"name":"Käktus"}`).toString('base64');
    const notUtf8 = Buffer.from([0x7b, 0xff, 0xfe, 0x7d]).toString('base64');

    const ok = await create(good, { isBase64Encoded: true });
    const bad = await create(notUtf8, { isBase64Encoded: true });

    expect(bodyOf(ok)).toStrictEqual({ name: 'Käktus' });
    expect(bodyOf(bad)).toStrictEqual({ error: 400, message: 'Request body is not valid UTF-8' });
  });
});

describe('logging', () => {
  it('writes one request line with the request id, status and latency, and never the token or body', async () => {
    api.logs.length = 0;

    await create(`{"id":${freshId()},"name":"Logged secret-name"}`);

    expect(api.logs).toHaveLength(1);
    expect(api.logs[0]).toMatchObject({
      level: 'info',
      message: 'request',
      fields: {
        status: 200,
        outcome: 'created',
        requestId: expect.stringMatching(/^test-request-/),
      },
    });
    expect(api.logs[0]?.fields.latencyMs).toBeTypeOf('number');
    const written = JSON.stringify(api.logs);
    expect(written).not.toContain(token);
    expect(written).not.toContain('secret-name');
  });

  it.each([
    [
      'a create',
      async () => create(`{"id":${freshId()},"name":"Counted"}`),
      'PlantsCreated',
      undefined,
    ],
    [
      'an expired token',
      async () =>
        api.invoke(fakeEvent({ token: await api.issuer.mint({ expiresIn: -60 }), body: '{}' })),
      'AuthFailures',
      'expired',
    ],
    [
      'a missing scope',
      async () =>
        api.invoke(
          fakeEvent({ token: await api.issuer.mint({ claims: { scope: 'x' } }), body: '{}' }),
        ),
      'AuthFailures',
      'insufficient_scope',
    ],
    ['a bad body', async () => create('{"id":1}'), 'ValidationFailures', undefined],
  ])('embeds the CloudWatch metric of %s in the line', async (_case, act, metric, reason) => {
    api.logs.length = 0;

    await act();

    const fields = api.logs[0]?.fields ?? {};
    expect(fields[metric]).toBe(1);
    expect(fields.AuthFailureReason).toBe(reason);
    expect(fields._aws).toMatchObject({
      CloudWatchMetrics: [
        {
          Namespace: 'PlantStore',
          Metrics: expect.arrayContaining([{ Name: metric, Unit: 'Count' }]),
        },
      ],
    });
  });

  it('measures the store latency of a create', async () => {
    api.logs.length = 0;

    await create(`{"id":${freshId()},"name":"Timed"}`);

    expect(api.logs[0]?.fields.StoreLatency).toBeTypeOf('number');
  });
});
