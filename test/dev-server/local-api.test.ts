import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalApi, startLocalApi } from '../../dev-server/local-api.ts';
import { localToken } from '../../dev-server/token.ts';
import { generateWebhookSecret } from '../../dev-server/webhook/webhook-secret.ts';
import {
  client,
  clientCredentialsToken,
  createPlant,
  startTestApi,
  tempDataDir,
  tokenRequest,
} from '../support/local-api-fixture.ts';
import { noSuchRoute, otherMethodRoutes } from '../support/unmatched-routes.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';

const curlBody = '{"id":1,"name":"Fern","tag":"indoor"}';

describe('startLocalApi', () => {
  let api: LocalApi;
  let token: string;
  let dir: string;
  let removeDir: () => Promise<void>;

  beforeAll(async () => {
    ({ dir, remove: removeDir } = await tempDataDir());
    api = await startTestApi({ dataDir: dir });
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

  // Each operation's refusals are test/functions/'s: these show one pass the gateway unchanged.
  it.each([
    ['no token', undefined, 'application/json', curlBody, 401],
    // Under the gateway's 10 MB, so the function refuses it, in its own shape.
    ['a body over the function limit', 'valid', 'application/json', `"${'x'.repeat(16_384)}"`, 413],
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

  it('answers a create with a token asked of /oauth2/token for plants/read only with 403 insufficient_scope', async () => {
    const asked = await fetch(`${api.url}/oauth2/token`, {
      ...tokenRequest,
      body: `${tokenRequest.body}&scope=plants%2Fread`,
    });
    const { access_token: readOnly } = (await asked.json()) as { access_token: string };

    const response = await createPlant(api, readOnly, '{"id":4,"name":"Moss"}');

    expect(response.status).toBe(403);
    expect(response.headers.get('www-authenticate')).toMatch(/error="insufficient_scope"/);
    expect(await response.json()).toMatchObject({ error: 403 });
  });

  it.each([
    ...otherMethodRoutes().map(({ method, path }) => [method, path]),
    ['OPTIONS', '/plants'],
    ['HEAD', '/plants'],
    ['DELETE', '/plants/'],
    ['POST', '/'],
    ['GET', noSuchRoute],
    ['DELETE', `${noSuchRoute}/1/2`],
  ])(
    'answers %s %s like an HTTP API with no such route: 404 {"message":"Not Found"}, not a 405',
    async (method, path) => {
      const response = await fetch(`${api.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}` },
      });

      expect(response.status).toBe(404);
      expect(response.headers.get('content-type')).toBe('application/json');
      expect(response.headers.get('allow')).toBeNull();
      if (method !== 'HEAD') expect(await response.json()).toEqual({ message: 'Not Found' });
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

  // One worker takes them all, where Lambda would run several environments.
  it('lets 10 concurrent creates of one id with different names make exactly one plant', async () => {
    const id = 9_007_199_254_740_993n;
    const bodies = Array.from({ length: 10 }, (_, i) => `{"id":${id},"name":"Plant ${i}"}`);

    const statuses = await Promise.all(
      bodies.map(async (body) => (await createPlant(api, token, body)).status),
    );

    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    expect(statuses.filter((status) => status === 409)).toHaveLength(9);
  });

  it('refuses a second server on its data directory, naming PLANTS_DATA_DIR', async () => {
    const second = startTestApi({ dataDir: dir });

    await expect(second).rejects.toThrow(/in use.*PLANTS_DATA_DIR/s);
  });

  it('refuses a second server on its port, naming the port and PORT', async () => {
    const port = Number(new URL(api.url).port);

    const clash = startLocalApi({ host: '127.0.0.1', port, log: () => {} });

    await expect(clash).rejects.toThrow(new RegExp(`Port ${port} .*PORT=`));
  });

  describe('closed and started again on its data directory, now with the webhook', () => {
    const secret = generateWebhookSecret();
    let receiver: WebhookReceiver;
    let again: string;

    beforeAll(async () => {
      receiver = await startWebhookReceiver({ secret });
      await api.close();
      api = await startTestApi({ dataDir: dir, webhook: { url: receiver.url.href, secret } });
      again = await clientCredentialsToken(api);
    });

    afterAll(async () => {
      await api?.close();
      await receiver?.close();
    });

    it('keeps the plants: a replay is 200 and a conflicting create is 409', async () => {
      const replay = await createPlant(api, again, curlBody);
      const conflict = await createPlant(api, again, '{"id":1,"name":"Rose","tag":"indoor"}');

      expect(replay.status).toBe(200);
      expect(await replay.json()).toEqual({ name: 'Fern', tag: 'indoor' });
      expect(conflict.status).toBe(409);
      expect(await conflict.json()).toMatchObject({ error: 409 });
    });

    it('announces a plant created now, and none of those created while it ran without', async () => {
      const created = await createPlant(api, again, '{"id":5,"name":"Announced"}');
      await expect
        .poll(() => receiver.received().length, { timeout: 20_000, interval: 20 })
        .toBe(1);
      await expect
        .poll(() => api.webhook?.backlog(), { timeout: 20_000, interval: 20 })
        .toStrictEqual({ records: 0, messages: 0 });

      expect(created.status).toBe(200);
      expect(receiver.received().map(({ body }) => body)).toEqual(['{"id":5,"name":"Announced"}']);
    });
  });
});
