import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalApi, startLocalApi } from '../../dev-server/local-api.ts';
import { localToken } from '../../dev-server/token.ts';
import {
  client,
  clientCredentialsToken,
  createPlant,
  startTestApi,
  tempDataDir,
} from '../support/local-api-fixture.ts';
import { noSuchRoute, otherMethodRoutes } from '../support/unmatched-routes.ts';

const curlBody = '{"id":1,"name":"Fern","tag":"indoor"}';

describe('startLocalApi', () => {
  let api: LocalApi;
  let token: string;
  let removeDir: () => Promise<void>;

  beforeAll(async () => {
    const data = await tempDataDir();
    removeDir = data.remove;
    api = await startTestApi({ dataDir: data.dir });
    token = await clientCredentialsToken(api);
  });

  afterAll(async () => {
    await api?.close();
    await removeDir?.();
  });

  it('answers the README curl example with 200 and the Plant, using a token from /oauth2/token', async () => {
    const response = await createPlant(api, token, curlBody);

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('apigw-requestid')).toBeTruthy();
    expect(await response.json()).toEqual({ name: 'Fern', tag: 'indoor' });
  });

  it('accepts a token from the token module, signed with the key in the data directory', async () => {
    const cliToken = await localToken({
      host: '127.0.0.1',
      port: 1,
      dataDir: api.dataDir,
      client,
    });

    const response = await createPlant(api, cliToken, '{"id":2,"name":"Ivy"}');

    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ name: 'Ivy' });
  });

  it('keeps ids exact over the int64 range', async () => {
    const max = await createPlant(api, token, '{"id":9223372036854775807,"name":"Max"}');
    const belowMax = await createPlant(api, token, '{"id":9223372036854775806,"name":"Below"}');

    expect([max.status, belowMax.status]).toEqual([200, 200]);
  });

  it.each([
    ['no token', undefined, 'application/json', curlBody, 401],
    ['a token that is not a JWT', 'not-a-jwt', 'application/json', curlBody, 401],
    ['malformed JSON', 'valid', 'application/json', '{"id":', 400],
    ['a missing name', 'valid', 'application/json', '{"id":3}', 400],
    ['a non-JSON content type', 'valid', 'text/plain', curlBody, 415],
    ['a body over the handler limit', 'valid', 'application/json', `"${'x'.repeat(2 ** 21)}"`, 413],
    ['the same id with another name', 'valid', 'application/json', '{"id":1,"name":"Rose"}', 409],
  ])('answers %s with a JSON {error, message} body', async (_name, auth, type, body, status) => {
    const headers: Record<string, string> = { 'content-type': type };
    if (auth !== undefined) headers.authorization = `Bearer ${auth === 'valid' ? token : auth}`;

    const response = await fetch(`${api.url}/plants`, { method: 'POST', headers, body });

    expect(response.status).toBe(status);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const error = (await response.json()) as Record<string, unknown>;
    expect(Object.keys(error).sort()).toEqual(['error', 'message']);
    expect(error.error).toBe(status);
    expect(error.message).toEqual(expect.any(String));
  });

  it('answers a valid token without the plants/write scope with 403', async () => {
    const noScope = await api.issuer.mintAccessToken(['plants/read']);

    const response = await createPlant(api, noScope, '{"id":4,"name":"Moss"}');

    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({ error: 403 });
  });

  it.each([
    ...otherMethodRoutes().map(({ method, path }) => [method, path]),
    ['OPTIONS', '/plants'],
    ['POST', '/'],
    ['GET', noSuchRoute],
  ])(
    'answers %s %s like an HTTP API with no such route: 404 {"message":"Not Found"}',
    async (method, path) => {
      const response = await fetch(`${api.url}${path}`, { method });

      expect(response.status).toBe(404);
      expect(response.headers.get('content-type')).toBe('application/json');
      expect(await response.json()).toEqual({ message: 'Not Found' });
    },
  );

  it('answers a body over 10 MB at the gateway with 413, before the handler', async () => {
    const body = Buffer.alloc(10 * 1024 * 1024 + 1, 0x20);

    const response = await fetch(`${api.url}/plants`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body,
    });

    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ message: 'Request Entity Too Large' });
  });

  it('lets 50 concurrent creates of one id with different names make exactly one plant', async () => {
    const id = 9_007_199_254_740_993n;
    const bodies = Array.from({ length: 50 }, (_, i) => `{"id":${id},"name":"Plant ${i}"}`);

    const statuses = await Promise.all(
      bodies.map(async (body) => (await createPlant(api, token, body)).status),
    );

    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    expect(statuses.filter((status) => status === 409)).toHaveLength(49);
  });
});

describe('startLocalApi restarted on the same data directory', () => {
  let removeDir: () => Promise<void>;
  let dir: string;
  const apis: LocalApi[] = [];

  beforeAll(async () => {
    ({ dir, remove: removeDir } = await tempDataDir());
  });

  afterAll(async () => {
    for (const api of apis) await api.close();
    await removeDir?.();
  });

  it('keeps the plants: a replay is 200 and a conflicting create is 409', async () => {
    const first = await startTestApi({ dataDir: dir });
    apis.push(first);
    const created = await createPlant(first, await clientCredentialsToken(first), curlBody);
    expect(created.status).toBe(200);
    await first.close();
    const second = await startTestApi({ dataDir: dir });
    apis.push(second);
    const token = await clientCredentialsToken(second);

    const replay = await createPlant(second, token, curlBody);
    const conflict = await createPlant(second, token, '{"id":1,"name":"Rose","tag":"indoor"}');

    expect(replay.status).toBe(200);
    expect(await replay.json()).toEqual({ name: 'Fern', tag: 'indoor' });
    expect(conflict.status).toBe(409);
    expect(await conflict.json()).toMatchObject({ error: 409 });
    await second.close();
  });

  it('refuses a second server on a directory in use, naming PLANTS_DATA_DIR', async () => {
    const running = await startTestApi({ dataDir: dir });
    apis.push(running);

    const second = startTestApi({ dataDir: dir });

    await expect(second).rejects.toThrow(/in use.*PLANTS_DATA_DIR/s);
  });
});

describe('startLocalApi in memory', () => {
  it('serves the API with no data directory', async () => {
    const api = await startTestApi();

    try {
      const response = await createPlant(api, await clientCredentialsToken(api), curlBody);

      expect(response.status).toBe(200);
      expect(api.dataDir).toBeUndefined();
    } finally {
      await api.close();
    }
  });

  it('names the port and PORT when the port is in use', async () => {
    const api = await startTestApi();
    const port = Number(new URL(api.url).port);

    try {
      const clash = startLocalApi({ host: '127.0.0.1', port, log: () => {} });

      await expect(clash).rejects.toThrow(new RegExp(`Port ${port} .*PORT=`));
    } finally {
      await api.close();
    }
  });
});
