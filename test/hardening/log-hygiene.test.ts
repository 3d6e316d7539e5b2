import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { jsonLogger } from '../../functions/log.ts';
import { checksOf, type OperationName, operations } from '../../functions/operations.ts';
import { hygieneHeaders, noContentHeaders } from '../support/contract.ts';
import {
  fakeDeleteEvent,
  fakeEvent,
  fakeListEvent,
  fakeOperationEvent,
} from '../support/fake-event.ts';
import { type PlantApiHarness, startPlantApi } from '../support/plant-api-harness.ts';

/** Marks planted in names, tags and bodies: none may reach a log line. */
const secret = 'S3CRET-body-marker';

let api: PlantApiHarness;
let token: string;
let expired: string;
let readOnly: string;
const freshId = () => api.freshId();

beforeAll(async () => {
  api = await startPlantApi({
    faultProxy: true,
    dynamodb: { attemptTimeoutMs: 100, maxAttempts: 2, backoffBaseMs: 5 },
    // The real logger, writing JSON lines to stdout, where the test reads them.
    log: jsonLogger,
    wrapStore: (store) => ({
      create: (plant) => {
        if (plant.name.startsWith('explode')) throw new TypeError('store blew up unexpectedly');
        return store.create(plant);
      },
      list: (request) => {
        if (request.cursor?.startsWith('explode'))
          throw new TypeError('store blew up unexpectedly');
        return store.list(request);
      },
    }),
  });
  token = await api.issuer.mint({ expiresIn: 3600 });
  expired = await api.issuer.mint({ expiresIn: -60 });
  readOnly = await api.issuer.mint({ claims: { scope: 'plants/read' } });
});
afterAll(() => api.close());

/** Runs one request through an operation and returns what it wrote to stdout, split into lines. */
async function stdoutOf(event: APIGatewayProxyEventV2, operation: OperationName) {
  const written: string[] = [];
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    written.push(String(chunk));
    return true;
  });
  try {
    const result = await api.handlers[operation](event);
    return { result, lines: written.join('').split('\n').filter(Boolean) };
  } finally {
    spy.mockRestore();
  }
}

const body = (name: string, id = freshId()) => `{"id":${id},"name":"${name}","tag":"${secret}"}`;
const withToken = (bearer: string, text: string) =>
  fakeEvent({ body: text, headers: { authorization: `Bearer ${bearer}` } });

type Case = [
  string,
  () => APIGatewayProxyEventV2 | Promise<APIGatewayProxyEventV2>,
  number,
  OperationName?,
];

/** A plant stored for a case to delete, its id far from the ones `freshId` hands out. */
const stored = async (id: string) => {
  const result = await api.invoke(withToken(token, `{"id":${id},"name":"Doomed"}`));
  expect(result.statusCode).toBe(200);
  return id;
};

describe('log lines', () => {
  // Chosen when the cases are collected, before the harness exists; fresh ids start far above it.
  const repeated = '4242';
  it.each<Case>([
    ['a created plant', () => withToken(token, body(`Fern ${secret}`)), 200],
    ['an idempotent replay', () => withToken(token, body(`Replay ${secret}`, repeated)), 200],
    ['the replay again', () => withToken(token, body(`Replay ${secret}`, repeated)), 200],
    ['a conflict', () => withToken(token, body(`Other ${secret}`, repeated)), 409],
    ['malformed JSON', () => withToken(token, `{"id":1,"name":"${secret}`), 400],
    ['a __proto__ key', () => withToken(token, `{"__proto__":{"x":"${secret}"},"id":1}`), 400],
    ['an invalid name', () => withToken(token, `{"id":1,"name":"${secret}\\u0000"}`), 400],
    ['an oversized body', () => withToken(token, `{"x":"${secret.repeat(2000)}"}`), 413],
    [
      'a wrong content type',
      () => fakeEvent({ token, body: body(secret), headers: { 'content-type': 'text/plain' } }),
      415,
    ],
    ['a token that is not a JWT', () => withToken(`${secret}.abc.def`, body(secret)), 401],
    ['an expired token', () => withToken(expired, body(secret)), 401],
    ['a token without the scope', () => withToken(readOnly, body(secret)), 403],
    ['an unexpected store failure', () => withToken(token, body(`explode ${secret}`)), 500],
    [
      'a throttled store',
      async () => {
        await api.proxy?.inject({ kind: 'dynamoError', status: 400, type: 'ThrottlingException' });
        return withToken(token, body(`Throttled ${secret}`));
      },
      503,
    ],
    ['a page listed', () => fakeListEvent('limit=3', { token: readOnly }), 200, 'list-plants'],
    [
      'a bad limit',
      () => fakeListEvent(`limit=${secret}`, { token: readOnly }),
      400,
      'list-plants',
    ],
    [
      'a cursor not issued here',
      () => fakeListEvent(`cursor=${secret}`, { token: readOnly }),
      400,
      'list-plants',
    ],
    ['a list without its scope', () => fakeListEvent('', { token }), 403, 'list-plants'],
    [
      'a list failing unexpectedly',
      () => fakeListEvent(`cursor=explode-${secret}`, { token: readOnly }),
      500,
      'list-plants',
    ],
    [
      'a deleted plant',
      async () => fakeDeleteEvent(await stored('4343'), { token }),
      204,
      'delete-plant',
    ],
    ['an absent plant', () => fakeDeleteEvent('4444', { token }), 204, 'delete-plant'],
    ['a non-canonical id', () => fakeDeleteEvent('04343', { token }), 400, 'delete-plant'],
    [
      'a delete without its scope',
      () => fakeDeleteEvent('4343', { token: readOnly }),
      403,
      'delete-plant',
    ],
    [
      'a throttled delete',
      async () => {
        await api.proxy?.inject({ kind: 'dynamoError', status: 400, type: 'ThrottlingException' });
        return fakeDeleteEvent('4545', { token });
      },
      503,
      'delete-plant',
    ],
  ])(
    'never contain the token, the Authorization header or the body: %s',
    async (_case, event, status, operation = 'create-plant') => {
      await expectHygienicLines(await event(), status, operation);
    },
  );
});

/** Every operation of the list, sent its sample with a marker in a header, four ways. */
describe.each(operations)('$name: its log lines', (operation) => {
  const sample = async (bearer: string | Promise<string>) =>
    fakeOperationEvent(operation, checksOf(operation).sample.request(freshId()), {
      token: await bearer,
      headers: { 'x-marker': secret },
    });
  const scoped = () => api.issuer.mint({ claims: { scope: operation.scope } });

  it.each<[string, () => Promise<APIGatewayProxyEventV2>, number]>([
    ['its sample request', () => sample(scoped()), checksOf(operation).sample.status],
    ['a token without its scope', () => sample(api.issuer.mint({ claims: { scope: 'x' } })), 403],
    ['an expired token', () => sample(expired), 401],
    [
      'a throttled store',
      async () => {
        await api.proxy?.inject({ kind: 'dynamoError', status: 400, type: 'ThrottlingException' });
        return sample(scoped());
      },
      503,
    ],
  ])(
    'never contain the token, the Authorization header or the marker: %s',
    async (_case, event, status) => {
      await expectHygienicLines(await event(), status, operation.name);
    },
  );
});

/** Runs the request and checks its answer and every line it logged. */
async function expectHygienicLines(
  request: APIGatewayProxyEventV2,
  status: number,
  operation: OperationName,
) {
  const authorization = request.headers.authorization ?? '';
  const bearer = authorization.replace(/^Bearer /, '');

  const { result, lines } = await stdoutOf(request, operation);
  await api.proxy?.restore();

  expect(result.statusCode).toBe(status);
  expect(result.headers).toMatchObject(status === 204 ? noContentHeaders : hygieneHeaders);
  expect(lines.length).toBeGreaterThanOrEqual(1);
  const entries = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  expect(entries.every((entry) => typeof entry.requestId === 'string')).toBe(true);
  expect(entries.at(-1)).toMatchObject({ message: 'request', status });
  const text = lines.join('\n');
  expect(text).not.toContain(secret);
  if (request.body !== undefined) expect(text).not.toContain(request.body);
  expect(text.toLowerCase()).not.toContain('authorization');
  expect(text.toLowerCase()).not.toContain('bearer ');
  for (const segment of bearer.split('.').filter((part) => part.length >= 3)) {
    expect(text).not.toContain(segment);
  }
}
