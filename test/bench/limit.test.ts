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
import { envNames } from '../../functions/config.ts';
import { operations } from '../../functions/operations.ts';
import { lambdaHandler } from '../../infra/bundling/bundling.ts';
import { type DynaliteServer, startDynalite } from '../support/dynalite-server.ts';
import { fakeDeleteEvent, fakeEvent, fakeListEvent } from '../support/fake-event.ts';
import { type HttpsEndpoint, startHttpsEndpoint } from '../support/https-endpoint.ts';
import { lambdaEnvironment } from '../support/lambda-environment.ts';
import { type LambdaProcess, startLambdaProcess } from '../support/lambda-process.ts';
import { nextQuery, walkPages } from '../support/list-pages.ts';
import { startTestIssuer, type TestIssuer } from '../support/test-issuer.ts';
import { createThrowawayCa, type ThrowawayCa } from '../support/throwaway-ca.ts';

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
