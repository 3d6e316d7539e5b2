import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Hash } from '@smithy/hash-node';
import { SignatureV4 } from '@smithy/signature-v4';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type BuiltBundle,
  buildBundle,
  bundleName,
  bundleSpecs,
  hasReferences,
} from '../../bench/bundles.ts';
import { signedDynamoDbHeaders } from '../../bench/reference/limit-sigv4.ts';
import { type HttpsEndpoint, startHttpsEndpoint } from '../../bench/support/https-endpoint.ts';
import { lambdaEnvironment } from '../../bench/support/lambda-environment.ts';
import { type LambdaProcess, startLambdaProcess } from '../../bench/support/lambda-process.ts';
import { createThrowawayCa, type ThrowawayCa } from '../../bench/support/throwaway-ca.ts';
import { envNames } from '../../functions/config.ts';
import { operationNamed, operations } from '../../functions/operations.ts';
import { lambdaHandler } from '../../infra/bundling/bundling.ts';
import { type DynaliteServer, startDynalite } from '../support/dynalite-server.ts';
import {
  fakeDeleteEvent,
  fakeEvent,
  fakeListEvent,
  fakeOperationEvent,
} from '../support/fake-event.ts';
import { nextQuery, walkPages } from '../support/list-pages.ts';
import { startTestIssuer, type TestIssuer } from '../support/test-issuer.ts';

/**
 * The LIMIT references answer as a minimal correct implementation must: each bundle, built with
 * the stack's options, runs under the Lambda runtime loop against dynalite and the test issuer,
 * both behind HTTPS as on AWS, so the connection warmed in init is the one the call takes.
 */
let scratch = '';
let ca: ThrowawayCa;
let dynalite: DynaliteServer;
let issuer: TestIssuer;
let endpoints: HttpsEndpoint[] = [];
const bundles = new Map<string, BuiltBundle>();
const functions = new Map<string, LambdaProcess>();
let issuerUrl = '';
/** The operations with a LIMIT: the lab is opt-in. */
const referenced = operations.filter(({ name }) => hasReferences(name));

beforeAll(async () => {
  scratch = await mkdtemp(path.join(os.tmpdir(), 'bench-limit-'));
  [ca, dynalite, issuer] = await Promise.all([
    createThrowawayCa(),
    startDynalite(),
    startTestIssuer(),
  ]);
  endpoints = await Promise.all([
    startHttpsEndpoint(new URL(issuer.issuer), ca),
    startHttpsEndpoint(new URL(dynalite.endpoint), ca),
  ]);
  const [issuerEndpoint, storeEndpoint] = endpoints as [HttpsEndpoint, HttpsEndpoint];
  issuerUrl = issuerEndpoint.url.origin;
  for (const { name: operation, scope } of referenced) {
    const name = bundleName('limit', operation);
    const spec = bundleSpecs.find((candidate) => candidate.name === name);
    if (!spec) throw new Error(`no bundle ${name}`);
    const bundle = await buildBundle(scratch, spec);
    bundles.set(name, bundle);
    const env = lambdaEnvironment({
      fn: {
        assetDir: path.dirname(bundle.file),
        handler: lambdaHandler,
        runtime: 'nodejs24.x',
        memorySize: 1024,
        logFormat: 'JSON',
      },
      variables: {
        [envNames.tableName]: dynalite.tableName,
        [envNames.issuer]: issuerUrl,
        [envNames.audiences]: 'test-client',
        [envNames.scope]: scope,
      },
      region: 'eu-west-1',
    });
    const started = await startLambdaProcess({
      env: {
        ...env,
        NODE_EXTRA_CA_CERTS: ca.caFile,
        [envNames.dynamodbEndpoint]: storeEndpoint.url.href,
      },
    });
    functions.set(name, started);
  }
}, 90_000);

afterAll(async () => {
  await Promise.all([...functions.values()].map((fn) => fn.close()));
  for (const endpoint of endpoints) await endpoint.close();
  await Promise.all([dynalite?.close(), issuer?.close()]);
  if (ca) await rm(ca.dir, { recursive: true, force: true });
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

const invoke = async (name: string, event: APIGatewayProxyEventV2) => {
  const fn = functions.get(name);
  if (!fn) throw new Error(`${name} did not start`);
  const { ok, result, error } = await fn.invoke(event);
  expect(ok, error).toBe(true);
  return result as APIGatewayProxyStructuredResultV2;
};
const token = (options: Parameters<TestIssuer['mint']>[0] = {}) =>
  issuer.mint({ issuer: issuerUrl, ...options });
const create = async (body: string, authorization?: string) =>
  invoke('limit', fakeEvent({ body, token: authorization ?? (await token()) }));
const errorOf = (result: APIGatewayProxyStructuredResultV2) =>
  JSON.parse(result.body ?? '') as { error: number; message: string };

let nextId = BigInt(Date.now()) * 1000n;
const newId = () => String(nextId++);
/** A revision as every write of a plant makes one: 16 random bytes in base64url. */
const revision = /^[A-Za-z0-9_-]{22}$/;

const read = async (id: string, headers: Record<string, string> = {}, authorization?: string) =>
  invoke(
    'limit-get-plant',
    fakeOperationEvent(
      operationNamed('get-plant'),
      { pathParameters: { id }, headers },
      { token: authorization ?? (await token({ claims: { scope: 'plants/read' } })) },
    ),
  );
const replace = async (
  id: string,
  body: string,
  headers: Record<string, string> = {},
  authorization?: string,
) =>
  invoke(
    'limit-replace-plant',
    fakeOperationEvent(
      operationNamed('replace-plant'),
      { pathParameters: { id }, body, headers },
      { token: authorization ?? (await token()) },
    ),
  );
/** A plant created through LIMIT's create, and the strong ETag its revision makes. */
const created = async (body: (id: string) => string) => {
  const id = newId();
  expect((await create(body(id))).statusCode).toBe(200);
  return { id, etag: `"${await dynalite.getRevision(dynalite.tableName, id)}"` };
};

describe('LIMIT references', () => {
  it.each(referenced.map(({ name }) => bundleName('limit', name)))(
    '%s is built from Node built-ins, bench/reference/ and the rules of functions/ alone: no package',
    (name) => {
      const inputs = bundles.get(name)?.inputs ?? [];

      expect(inputs.length).toBeGreaterThan(0);
      expect(
        inputs.filter(
          (input) => !input.startsWith('bench/reference/limit') && !input.startsWith('functions/'),
        ),
      ).toEqual([]);
    },
  );
});

describe('bench/reference/limit.ts (POST /plants)', () => {
  it('stores a new plant with its exact int64 id and answers 200 with the Plant', async () => {
    const id = '9223372036854775807';

    const created = await create(`{"id":${id},"name":"Fern","tag":"indoor","extra":1}`);

    expect(created.statusCode).toBe(200);
    expect(JSON.parse(created.body ?? '')).toStrictEqual({ name: 'Fern', tag: 'indoor' });
    expect(await dynalite.getItem(dynalite.tableName, id)).toStrictEqual({
      id: { N: id },
      name: { S: 'Fern' },
      tag: { S: 'indoor' },
    });
    expect(await dynalite.getRevision(dynalite.tableName, id)).toMatch(revision);
  });

  it('answers 200 to an identical replay and 409 to a different plant, which is not stored', async () => {
    const id = newId();
    await create(`{"id":${id},"name":"Fern"}`);

    const replay = await create(`{"id":${id},"name":"Fern"}`);
    const conflict = await create(`{"id":${id},"name":"Ivy"}`);
    const addedTag = await create(`{"id":${id},"name":"Fern","tag":"indoor"}`);

    expect(replay.statusCode).toBe(200);
    expect([conflict.statusCode, addedTag.statusCode]).toEqual([409, 409]);
    expect(errorOf(conflict).error).toBe(409);
    expect(await dynalite.getItem(dynalite.tableName, id)).toStrictEqual({
      id: { N: id },
      name: { S: 'Fern' },
    });
  });

  it.each([
    ['no token', undefined, 'Bearer'],
    ['a key the issuer does not publish', { unpublishedKey: true }, 'Bearer error="invalid_token"'],
    ['an expired token', { expiresIn: -10 }, 'Bearer error="invalid_token"'],
    ['a token not yet valid', { claims: { nbf: 4_000_000_000 } }, 'Bearer error="invalid_token"'],
    ['another issuer', { issuer: 'https://other.example' }, 'Bearer error="invalid_token"'],
    ['ES256', { alg: 'ES256' as const }, 'Bearer error="invalid_token"'],
    ['another audience', { claims: { client_id: 'other' } }, 'Bearer error="invalid_token"'],
  ])('answers 401 to %s and stores nothing', async (_case, options, challenge) => {
    const id = newId();
    const event = fakeEvent({ body: `{"id":${id},"name":"Fern"}` });
    if (options) event.headers.authorization = `Bearer ${await token(options)}`;

    const refused = await invoke('limit', event);

    expect(refused.statusCode).toBe(401);
    expect(refused.headers?.['www-authenticate']).toBe(challenge);
    expect(errorOf(refused).error).toBe(401);
    expect(await dynalite.getItem(dynalite.tableName, id)).toBeUndefined();
  });

  it('answers 403 to a token without plants/write', async () => {
    const reader = await token({ claims: { scope: 'plants/read' } });

    const refused = await create(`{"id":${newId()},"name":"Fern"}`, reader);

    expect(refused.statusCode).toBe(403);
    expect(refused.headers?.['www-authenticate']).toMatch(/error="insufficient_scope"/);
  });

  it.each([
    ['malformed JSON', '{"id":1,'],
    ['an array', '[]'],
    ['an id past int64', '{"id":9223372036854775808,"name":"Fern"}'],
    ['a fractional id', '{"id":1.5,"name":"Fern"}'],
    ['a missing name', '{"id":1}'],
    ['a null tag', '{"id":1,"name":"Fern","tag":null}'],
  ])('answers 400 to %s', async (_case, body) => {
    const refused = await create(body);

    expect(refused.statusCode).toBe(400);
    expect(errorOf(refused)).toStrictEqual({ error: 400, message: expect.any(String) });
  });
});

describe('bench/reference/limit-list.ts (GET /plants)', () => {
  it('answers arrays whose next links lead through every plant exactly once', async () => {
    const ids = [newId(), newId(), newId(), newId(), newId()];
    for (const id of ids) await create(`{"id":${id},"name":"Moss"}`);
    const reader = await token({ claims: { scope: 'plants/read' } });

    const walk = await walkPages((event) => invoke('limit-list-plants', event), {
      query: 'limit=2',
      token: reader,
    });

    const listed = walk.plants.map((plant) => plant.id);
    expect(new Set(listed).size).toBe(listed.length);
    expect(listed).toEqual(expect.arrayContaining(ids));
    expect(walk.pages.length).toBeGreaterThan(2);
  });

  it('answers 400 to a limit out of range and to a cursor it did not issue for that limit', async () => {
    const reader = await token({ claims: { scope: 'plants/read' } });
    const list = (query: string) =>
      invoke('limit-list-plants', fakeListEvent(query, { token: reader }));
    const next = nextQuery(await list('limit=1')) ?? '';
    const cursor = new URLSearchParams(next).get('cursor') ?? '';
    const changed = `${cursor.slice(0, -1)}${cursor.endsWith('A') ? 'B' : 'A'}`;

    const statuses: (number | undefined)[] = [];
    for (const query of [
      'limit=0',
      'limit=abc',
      'limit=101',
      `limit=2&cursor=${cursor}`,
      `limit=1&cursor=${changed}`,
    ]) {
      statuses.push((await list(query)).statusCode);
    }

    expect((await list(next)).statusCode).toBe(200);
    expect(statuses).toEqual([400, 400, 400, 400, 400]);
  });
});

describe('bench/reference/limit-delete.ts (DELETE /plants/{id})', () => {
  it('deletes with 204 and no body, and a created plant is gone', async () => {
    const id = newId();
    await create(`{"id":${id},"name":"Fern"}`);

    const deleted = await invoke(
      'limit-delete-plant',
      fakeDeleteEvent(id, { token: await token() }),
    );

    expect(deleted.statusCode).toBe(204);
    expect(deleted.body).toBeUndefined();
    expect(await dynalite.getItem(dynalite.tableName, id)).toBeUndefined();
  });

  it.each(['01', '-0', '1.0', '9223372036854775808'])('answers 400 to the id %s', async (id) => {
    const refused = await invoke(
      'limit-delete-plant',
      fakeDeleteEvent(id, { token: await token() }),
    );

    expect(refused.statusCode).toBe(400);
  });
});

describe('bench/reference/limit-get.ts (GET /plants/{id})', () => {
  it('answers 200 with the plant as a list item, its revision as a strong ETag, private, no-cache', async () => {
    const { id, etag } = await created((id) => `{"id":${id},"name":"Fern","tag":"indoor"}`);

    const answered = await read(id);

    expect(answered.statusCode).toBe(200);
    expect(answered.body).toBe(`{"id":${id},"name":"Fern","tag":"indoor"}`);
    expect(answered.headers).toMatchObject({ etag, 'cache-control': 'private, no-cache' });
  });

  it('answers 304 with the ETag and no body when If-None-Match names it, weak or in a list', async () => {
    const { id, etag } = await created((id) => `{"id":${id},"name":"Fern"}`);

    const answers = [
      await read(id, { 'if-none-match': etag }),
      await read(id, { 'if-none-match': `"other", W/${etag}` }),
      await read(id, { 'if-none-match': '*' }),
      await read(id, { 'if-none-match': '"other"' }),
    ];

    expect(answers.map((answered) => answered.statusCode)).toEqual([304, 304, 304, 200]);
    expect(answers[0]?.body).toBeUndefined();
    expect(answers[0]?.headers).toMatchObject({ etag, 'cache-control': 'private, no-cache' });
    expect(answers[0]?.headers?.['content-type']).toBeUndefined();
  });

  it('answers a plant stored without a revision with the ETag "0"', async () => {
    const id = newId();
    await dynalite.putItem(dynalite.tableName, { id: { N: id }, name: { S: 'Old fern' } });

    const answered = await read(id);

    expect(answered.statusCode).toBe(200);
    expect(answered.headers?.etag).toBe('"0"');
  });

  it('answers 404 in the error shape when no plant has the id', async () => {
    const absent = await read(newId());

    expect(absent.statusCode).toBe(404);
    expect(errorOf(absent).error).toBe(404);
  });

  it.each([
    ['the id 01', '01', {}],
    ['the id 9223372036854775808', '9223372036854775808', {}],
    ['an If-None-Match without quotes', undefined, { 'if-none-match': 'abc' }],
    ['an If-Match beside it', undefined, { 'if-match': '"abc"' }],
  ])('answers 400 to %s', async (_case, id, headers: Record<string, string>) => {
    const refused = await read(id ?? newId(), headers);

    expect(refused.statusCode).toBe(400);
    expect(errorOf(refused).error).toBe(400);
  });

  it('answers 401 without a token and 403 to a token without plants/read', async () => {
    const noToken = await invoke(
      'limit-get-plant',
      fakeOperationEvent(operationNamed('get-plant'), { pathParameters: { id: newId() } }),
    );
    const writer = await read(newId(), {}, await token());

    expect([noToken.statusCode, writer.statusCode]).toEqual([401, 403]);
  });
});

describe('bench/reference/limit-replace.ts (PUT /plants/{id})', () => {
  it('replaces the plant whole, with a new revision, and answers 200 with it and its new ETag', async () => {
    const { id, etag } = await created((id) => `{"id":${id},"name":"Fern","tag":"indoor"}`);

    const replaced = await replace(id, `{"id":${id},"name":"Ivy"}`, { 'if-match': etag });

    const stored = await dynalite.getRevision(dynalite.tableName, id);
    expect(replaced.statusCode).toBe(200);
    expect(replaced.body).toBe(`{"id":${id},"name":"Ivy"}`);
    expect(stored).toMatch(revision);
    expect(replaced.headers?.etag).toBe(`"${stored}"`);
    expect(replaced.headers?.etag).not.toBe(etag);
    expect(await dynalite.getItem(dynalite.tableName, id)).toStrictEqual({
      id: { N: id },
      name: { S: 'Ivy' },
    });
  });

  it('answers 412, not 404, to an If-Match the plant no longer has, and changes nothing', async () => {
    const { id, etag } = await created((id) => `{"id":${id},"name":"Fern"}`);
    await replace(id, '{"name":"Ivy"}', { 'if-match': etag });
    const current = await dynalite.getRevision(dynalite.tableName, id);

    const stale = await replace(id, '{"name":"Moss"}', { 'if-match': etag });
    const weak = await replace(id, '{"name":"Moss"}', { 'if-match': `W/"${current}"` });

    expect([stale.statusCode, weak.statusCode]).toEqual([412, 412]);
    expect(errorOf(stale).error).toBe(412);
    expect(await dynalite.getRevision(dynalite.tableName, id)).toBe(current);
    expect(await dynalite.getItem(dynalite.tableName, id)).toStrictEqual({
      id: { N: id },
      name: { S: 'Ivy' },
    });
  });

  it('replaces with If-Match: *, a list naming the revision, or none; "0" matches a plant stored without one', async () => {
    const { id, etag } = await created((id) => `{"id":${id},"name":"Fern"}`);
    const old = newId();
    await dynalite.putItem(dynalite.tableName, { id: { N: old }, name: { S: 'Old fern' } });

    const statuses = [
      (await replace(id, '{"name":"Ivy"}', { 'if-match': `"0", W/"x", ${etag}` })).statusCode,
      (await replace(id, '{"name":"Moss"}', { 'if-match': '*' })).statusCode,
      (await replace(id, '{"name":"Fern"}')).statusCode,
      (await replace(old, '{"name":"Ivy"}', { 'if-match': '"0"' })).statusCode,
    ];

    expect(statuses).toEqual([200, 200, 200, 200]);
    expect(await dynalite.getRevision(dynalite.tableName, old)).toMatch(revision);
  });

  it.each([
    ['no If-Match', {}],
    ['If-Match: *', { 'if-match': '*' }],
    ['an If-Match', { 'if-match': '"AAAAAAAAAAAAAAAAAAAAAA"' }],
  ])('answers 404 with %s when no plant has the id, and creates none', async (_case, headers) => {
    const id = newId();

    const absent = await replace(id, '{"name":"Fern"}', headers);

    expect(absent.statusCode).toBe(404);
    expect(errorOf(absent).error).toBe(404);
    expect(await dynalite.getItem(dynalite.tableName, id)).toBeUndefined();
  });

  it.each([
    [
      "an id in the body that is not the path's",
      (id: string) => `{"id":${BigInt(id) + 1n},"name":"Ivy"}`,
      {},
    ],
    ['the id as a string', (id: string) => `{"id":"${id}","name":"Ivy"}`, {}],
    ['a missing name', () => '{"tag":"indoor"}', {}],
    ['an If-Match without quotes', () => '{"name":"Ivy"}', { 'if-match': 'abc' }],
    ['an If-None-Match beside it', () => '{"name":"Ivy"}', { 'if-none-match': '*' }],
  ])(
    'answers 400 to %s and changes nothing',
    async (_case, body, headers: Record<string, string>) => {
      const { id } = await created((id) => `{"id":${id},"name":"Fern"}`);

      const refused = await replace(id, body(id), headers);

      expect(refused.statusCode).toBe(400);
      expect(errorOf(refused).error).toBe(400);
      expect(await dynalite.getItem(dynalite.tableName, id)).toStrictEqual({
        id: { N: id },
        name: { S: 'Fern' },
      });
    },
  );

  it('answers 415, 413 and 403 as create does', async () => {
    const id = newId();
    const statuses = [
      (await replace(id, '{"name":"Ivy"}', { 'content-type': 'text/plain' })).statusCode,
      (await replace(id, `{"name":"${'x'.repeat(17_000)}"}`)).statusCode,
      (await replace(id, '{"name":"Ivy"}', {}, await token({ claims: { scope: 'plants/read' } })))
        .statusCode,
    ];

    expect(statuses).toEqual([415, 413, 403]);
  });
});

describe('signedDynamoDbHeaders', () => {
  it.each([
    ['the regional endpoint', 'https://dynamodb.eu-west-1.amazonaws.com/', undefined],
    ['an endpoint with a port', 'https://127.0.0.1:8443/', undefined],
    ['temporary Lambda credentials', 'https://dynamodb.eu-west-1.amazonaws.com/', 'FwoG+token=='],
  ])('signs as the AWS SDK does for %s', async (_case, endpoint, sessionToken) => {
    const url = new URL(endpoint);
    const body = '{"TableName":"plants","Key":{"id":{"N":"9223372036854775807"}}}';
    const now = new Date('2026-11-22T16:15:00.123Z');
    const credentials = {
      accessKeyId: 'AKIDEXAMPLE',
      secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
      ...(sessionToken ? { sessionToken } : {}),
    };

    const ours = signedDynamoDbHeaders(url, 'DeleteItem', body, credentials, 'eu-west-1', now);

    const signer = new SignatureV4({
      credentials,
      region: 'eu-west-1',
      service: 'dynamodb',
      sha256: Hash.bind(null, 'sha256'),
      applyChecksum: false,
    });
    const { authorization, 'x-amz-date': _date, ...sent } = ours;
    const reference = await signer.sign(
      {
        method: 'POST',
        protocol: url.protocol,
        hostname: url.hostname,
        ...(url.port ? { port: Number(url.port) } : {}),
        path: url.pathname,
        query: {},
        headers: sent,
        body,
      },
      { signingDate: now },
    );
    expect(authorization).toBe(reference.headers.authorization);
  });
});
