import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
