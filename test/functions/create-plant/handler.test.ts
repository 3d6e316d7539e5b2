import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operation } from '../../../functions/create-plant/operation.ts';
import { routeKey } from '../../../functions/operation.ts';
import { hygieneHeaders, missingTokenAnswer } from '../../support/contract.ts';
import { fakeEvent } from '../../support/fake-event.ts';
import { bodyOf, type PlantApiHarness, startPlantApi } from '../../support/plant-api-harness.ts';

/** A name the store wrapper below fails on as a bug would: the one way to reach "anything unexpected". */
const unexpectedFailure = 'Unexpected failure';

let api: PlantApiHarness;
let token: string;
const freshId = () => api.freshId();

beforeAll(async () => {
  api = await startPlantApi({
    faultProxy: true,
    dynamodb: { attemptTimeoutMs: 150, maxAttempts: 2, backoffBaseMs: 5 },
    wrapStore: (store) => ({
      create: (plant) => {
        if (plant.name === unexpectedFailure) throw new TypeError('store blew up unexpectedly');
        return store.create(plant);
      },
    }),
  });
  token = await api.issuer.mint();
});
afterAll(() => api.close());

const create = (body: string, overrides: Parameters<typeof fakeEvent>[0] = {}) =>
  api.invoke(fakeEvent({ token, body, ...overrides }));
const stored = (id: string) => api.dynalite.getItem(api.tableName, id);

/** One case per row of the README's API table, in its order; the variations live with each module. */
describe(`${routeKey(operation)}, row by row of the API table`, () => {
  it('valid token with scope plants/write, valid NewPlant: 200 Plant with name and tag, never id', async () => {
    const id = freshId();

    const result = await create(`{"id":${id},"name":"Fern","tag":"indoor"}`);

    expect(result.statusCode).toBe(200);
    expect(result.headers).toMatchObject(hygieneHeaders);
    expect(bodyOf(result)).toStrictEqual({ name: 'Fern', tag: 'indoor' });
    expect(await stored(id)).toStrictEqual({
      id: { N: id },
      name: { S: 'Fern' },
      tag: { S: 'indoor' },
    });
  });

  it('the same id, name and tag again: 200 (an idempotent replay)', async () => {
    const body = `{"id":${freshId()},"name":"Basil","tag":"herb"}`;
    await create(body);

    const replay = await create(body);

    expect(replay.statusCode).toBe(200);
    expect(bodyOf(replay)).toStrictEqual({ name: 'Basil', tag: 'herb' });
  });

  it('the same id with another name or tag: 409, and the stored plant is unchanged', async () => {
    const id = freshId();
    await create(`{"id":${id},"name":"Basil","tag":"herb"}`);

    const conflict = await create(`{"id":${id},"name":"Mint","tag":"herb"}`);

    expect(conflict.statusCode).toBe(409);
    expect(bodyOf(conflict)).toStrictEqual({
      error: 409,
      message: `A different plant with id ${id} already exists`,
    });
    expect(await stored(id)).toStrictEqual({
      id: { N: id },
      name: { S: 'Basil' },
      tag: { S: 'herb' },
    });
  });

  it('no Authorization: 401 with a bare Bearer challenge, before the body is looked at', async () => {
    const id = freshId();
    const callsBefore = api.storeCalls();

    const result = await api.invoke(
      fakeEvent({
        body: `{"id":${id},`,
        headers: { authorization: undefined, 'content-type': 'text/plain' },
      }),
    );

    expect(result.statusCode).toBe(401);
    expect(result.headers).toStrictEqual(missingTokenAnswer.headers);
    expect(bodyOf(result)).toStrictEqual(missingTokenAnswer.body);
    expect(api.storeCalls()).toBe(callsBefore);
  });

  it('an expired token: 401 with error="invalid_token"', async () => {
    const expired = await api.issuer.mint({ expiresIn: -60 });
    const id = freshId();

    const result = await api.invoke(fakeEvent({ token: expired, body: `{"id":${id},"name":"X"}` }));

    expect(result.statusCode).toBe(401);
    expect(bodyOf(result)).toStrictEqual({ error: 401, message: 'Token has expired' });
    expect(result.headers?.['www-authenticate']).toBe(
      'Bearer realm="plant-store", error="invalid_token", error_description="Token has expired"',
    );
    expect(await stored(id)).toBeUndefined();
  });

  it('a valid token without the scope: 403 with error="insufficient_scope"', async () => {
    const readOnly = await api.issuer.mint({ claims: { scope: 'plants/read' } });

    const result = await api.invoke(fakeEvent({ token: readOnly, body: '{"id":1,"name":"X"}' }));

    expect(result.statusCode).toBe(403);
    expect(bodyOf(result)).toStrictEqual({
      error: 403,
      message: 'Token lacks the scope "plants/write"',
    });
    expect(result.headers?.['www-authenticate']).toBe(
      'Bearer realm="plant-store", error="insufficient_scope", error_description="Token lacks the scope \'plants/write\'", scope="plants/write"',
    );
  });

  it('a missing field: 400, the message names the field', async () => {
    const result = await create('{"id":1}');

    expect(result.statusCode).toBe(400);
    expect(bodyOf(result)).toStrictEqual({ error: 400, message: 'name is required' });
  });

  it('Content-Type not application/json: 415', async () => {
    const result = await create(`{"id":${freshId()},"name":"Fern"}`, {
      headers: { 'content-type': 'text/plain' },
    });

    expect(result.statusCode).toBe(415);
    expect(bodyOf(result)).toStrictEqual({
      error: 415,
      message: 'Content-Type must be application/json',
    });
  });

  it('a body over 16384 bytes: 413', async () => {
    const result = await create(`{"id":1,"name":"Fern","padding":"${'x'.repeat(16 * 1024)}"}`);

    expect(result.statusCode).toBe(413);
    expect(bodyOf(result)).toStrictEqual({
      error: 413,
      message: 'Request body must be at most 16384 bytes',
    });
  });

  it('the store throttled after retries: 503 with Retry-After', async () => {
    const id = freshId();
    await api.proxy?.inject({ kind: 'dynamoError', status: 400, type: 'ThrottlingException' });

    const result = await create(`{"id":${id},"name":"Throttled"}`);
    await api.proxy?.restore();

    expect(result.statusCode).toBe(503);
    expect(result.headers).toMatchObject({ ...hygieneHeaders, 'retry-after': '1' });
    expect(bodyOf(result)).toStrictEqual({
      error: 503,
      message: 'The plant store is busy or unavailable, retry later',
    });
    expect(await stored(id)).toBeUndefined();
  });

  it('anything unexpected: 500, logged with the request id, the body saying nothing internal', async () => {
    api.logs.length = 0;

    const result = await create(`{"id":${freshId()},"name":"${unexpectedFailure}"}`);

    expect(result.statusCode).toBe(500);
    expect(bodyOf(result)).toStrictEqual({ error: 500, message: 'Internal server error' });
    expect(api.logs.find((line) => line.message === 'unexpected error')?.fields).toMatchObject({
      requestId: expect.stringMatching(/^test-request-/),
    });
  });
});
