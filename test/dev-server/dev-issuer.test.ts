import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DevIssuer } from '../../dev-server/dev-issuer.ts';
import { loadOrCreateSigningKey, type SigningKey } from '../../dev-server/issuer-files.ts';
import type { LocalApi } from '../../dev-server/local-api.ts';
import { client, startTestApi } from '../support/local-api-fixture.ts';

const form = 'application/x-www-form-urlencoded';
const basic = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

describe('DevIssuer over HTTP', () => {
  let api: LocalApi;

  beforeAll(async () => {
    api = await startTestApi();
  });

  afterAll(async () => {
    await api?.close();
  });

  function tokenRequest(body: string, headers: Record<string, string> = {}) {
    return fetch(`${api.url}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': form, ...headers },
      body,
    });
  }

  it('issues a Cognito-shaped access token with every scope of the API for client credentials in HTTP Basic', async () => {
    const response = await tokenRequest('grant_type=client_credentials', {
      authorization: basic(client.id, client.secret),
    });

    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toEqual({
      access_token: expect.any(String),
      token_type: 'Bearer',
      expires_in: 3600,
    });
    const jwks = (await (await fetch(`${api.url}/.well-known/jwks.json`)).json()) as never;
    const { payload } = await jwtVerify(body.access_token as string, createLocalJWKSet(jwks), {
      issuer: api.url,
      algorithms: ['RS256'],
    });
    expect(payload).toMatchObject({
      sub: client.id,
      client_id: client.id,
      token_use: 'access',
      scope: 'plants/read plants/write',
    });
    expect(payload).not.toHaveProperty('aud');
    expect((payload.exp ?? 0) - (payload.iat ?? 0)).toBe(3600);
    expect(payload.jti).toEqual(expect.any(String));
    expect(decodeProtectedHeader(body.access_token as string).kid).toEqual(expect.any(String));
  });

  it('accepts client_id and client_secret in the form, and an explicit scope', async () => {
    const response = await tokenRequest(
      `grant_type=client_credentials&client_id=${client.id}&client_secret=${client.secret}&scope=plants%2Fwrite`,
    );

    expect(response.status).toBe(200);
  });

  it.each([
    ['plants/read', 'plants/read'],
    ['plants/write', 'plants/write'],
    ['plants/write plants/read', 'plants/write plants/read'],
    ['plants/read plants/read', 'plants/read'],
  ])('grants exactly the scopes asked for: %s', async (asked, granted) => {
    const response = await tokenRequest(
      `grant_type=client_credentials&scope=${encodeURIComponent(asked)}`,
      { authorization: basic(client.id, client.secret) },
    );

    const { access_token: token } = (await response.json()) as { access_token: string };
    expect(decodeJwt(token).scope).toBe(granted);
  });

  it.each([
    [
      'a wrong secret',
      'grant_type=client_credentials',
      basic(client.id, 'nope'),
      401,
      'invalid_client',
    ],
    [
      'an unknown client',
      'grant_type=client_credentials',
      basic('who', client.secret),
      401,
      'invalid_client',
    ],
    [
      'no client authentication',
      'grant_type=client_credentials',
      undefined,
      400,
      'invalid_request',
    ],
    ['no grant_type', '', basic(client.id, client.secret), 400, 'invalid_request'],
    [
      'another grant type',
      'grant_type=password',
      basic(client.id, client.secret),
      400,
      'unsupported_grant_type',
    ],
    [
      'an unknown scope',
      'grant_type=client_credentials&scope=plants/delete',
      basic(client.id, client.secret),
      400,
      'invalid_scope',
    ],
    [
      'a known scope beside an unknown one',
      'grant_type=client_credentials&scope=plants/read%20plants/admin',
      basic(client.id, client.secret),
      400,
      'invalid_scope',
    ],
  ])('answers %s with %i {"error":"%s"}', async (_name, body, authorization, status, error) => {
    const response = await tokenRequest(body, authorization ? { authorization } : {});

    expect(response.status).toBe(status);
    expect(await response.json()).toEqual({ error });
  });

  it('answers a JSON body with 400 invalid_request: the endpoint takes a form', async () => {
    const response = await fetch(`${api.url}/oauth2/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: basic(client.id, client.secret),
      },
      body: '{"grant_type":"client_credentials"}',
    });

    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: 'invalid_request' });
  });

  it('serves only public key material in the JWKS', async () => {
    const jwks = (await (await fetch(`${api.url}/.well-known/jwks.json`)).json()) as {
      keys: Record<string, unknown>[];
    };

    expect(jwks.keys).toHaveLength(1);
    expect(Object.keys(jwks.keys[0] ?? {}).sort()).toEqual(['alg', 'e', 'kid', 'kty', 'n', 'use']);
  });
});

describe('DevIssuer token endpoint against guessing and large bodies', () => {
  let api: LocalApi;
  const tokenFailures = { burst: 3, forgivenPerSecond: 2, maxAddresses: 100 };

  beforeAll(async () => {
    api = await startTestApi({
      limits: { tokenFailures },
    });
  });

  afterAll(async () => {
    await api?.close();
  });

  const ask = (authorization: string, body = 'grant_type=client_credentials') =>
    fetch(`${api.url}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': form, authorization },
      body,
    });

  it('makes an address that keeps guessing wait, with 429 slow_down and Retry-After, then lets it in again', async () => {
    const guesses = [];
    for (let i = 0; i < tokenFailures.burst; i++) {
      guesses.push((await ask(basic(client.id, `guess-${i}`))).status);
    }

    const refused = await ask(basic(client.id, client.secret));
    const wait = Number(refused.headers.get('retry-after'));
    await new Promise((resolve) => setTimeout(resolve, wait * 1000));
    const later = await ask(basic(client.id, client.secret));

    expect(guesses).toEqual([401, 401, 401]);
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({ error: 'slow_down' });
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(later.status).toBe(200);
  });

  it('answers a form over 4 KiB with 413 invalid_request before reading it, as sent or chunked', async () => {
    const huge = `grant_type=client_credentials&pad=${'x'.repeat(9_900_000)}`;
    const chunked = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(huge.slice(0, 5_000)));
        controller.close();
      },
    });

    const whole = await ask(basic(client.id, client.secret), huge);
    const streamed = await fetch(`${api.url}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': form, authorization: basic(client.id, client.secret) },
      body: chunked,
      duplex: 'half',
    } as RequestInit);
    const small = await ask(
      basic(client.id, client.secret),
      `grant_type=client_credentials&pad=${'x'.repeat(4_000)}`,
    );

    expect(whole.status).toBe(413);
    expect(await whole.json()).toEqual({ error: 'invalid_request' });
    expect(streamed.status).toBe(413);
    expect(await streamed.json()).toEqual({ error: 'invalid_request' });
    expect(small.status).toBe(200);
  });
});

describe('DevIssuer.vouchesFor', () => {
  const issuer = 'http://127.0.0.1:3000';
  let key: SigningKey;
  let dev: DevIssuer;

  beforeAll(async () => {
    key = await loadOrCreateSigningKey(undefined);
    dev = new DevIssuer({ issuer, key, client });
  });

  it('vouches for a token it signed and for its client credentials in HTTP Basic', async () => {
    const token = await dev.mintAccessToken();

    expect(await dev.vouchesFor(`Bearer ${token}`)).toBe(true);
    expect(await dev.vouchesFor(`bearer  ${token} `)).toBe(true);
    expect(await dev.vouchesFor(basic(client.id, client.secret))).toBe(true);
  });

  it('vouches for nothing else: no header, a wrong secret, another key or issuer, an expired token', async () => {
    const other = new DevIssuer({ issuer, key: await loadOrCreateSigningKey(undefined), client });
    // dev's own key for the next two, so that each is refused for its issuer or its expiry alone.
    const elsewhere = new DevIssuer({ issuer: 'http://127.0.0.1:3001', key, client });
    const expired = await new SignJWT({ scope: 'plants/write' })
      .setProtectedHeader({ alg: 'RS256', kid: key.kid })
      .setIssuer(issuer)
      .setExpirationTime(Math.floor(Date.now() / 1000) - 60)
      .sign(key.privateKey);

    const answers = await Promise.all([
      dev.vouchesFor(undefined),
      dev.vouchesFor('Bearer not.a.token'),
      dev.vouchesFor(basic(client.id, 'nope')),
      dev.vouchesFor(`Bearer ${await other.mintAccessToken()}`),
      dev.vouchesFor(`Bearer ${await elsewhere.mintAccessToken()}`),
      dev.vouchesFor(`Bearer ${expired}`),
    ]);

    expect(answers).toEqual([false, false, false, false, false, false]);
  });
});
