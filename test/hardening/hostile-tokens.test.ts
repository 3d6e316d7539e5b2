import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import {
  type CryptoKey,
  exportJWK,
  exportSPKI,
  generateKeyPair,
  importJWK,
  type JWK,
  type JWTPayload,
  SignJWT,
} from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { checksOf, type Operation, operations } from '../../functions/operations.ts';
import { expectErrorShape, hygieneHeaders } from '../support/contract.ts';
import { fakeEvent, fakeOperationEvent } from '../support/fake-event.ts';
import { bodyOf, type PlantApiHarness, startPlantApi } from '../support/plant-api-harness.ts';
import type { MintOptions, TestIssuer } from '../support/test-issuer.ts';
import { respell, withStrayBit } from '../support/token-spelling.ts';

/**
 * The API accepts tokens for itself (as `aud`) or for one client (Cognito's `client_id`). The
 * claim rules of this API's own (`token_use`, audience, token age) are `checkClaims`'s, tested in
 * test/functions/auth/token-verifier.test.ts; here, what takes a signed token through the chain:
 * algorithms, keys, signatures, what the JWT library checks, and claims no serializer writes.
 */
const audiences = ['plant-store-api', 'test-client'];

let api: PlantApiHarness;
const freshId = () => api.freshId();

beforeAll(async () => {
  api = await startPlantApi({ audiences });
});
afterAll(() => api.close());

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const nowSeconds = () => Math.floor(Date.now() / 1000);

/** The published keys, as anyone can read them from the issuer. */
async function publishedKeys(issuer: TestIssuer): Promise<JWK[]> {
  const response = await fetch(issuer.jwksUrl);
  return ((await response.json()) as { keys: JWK[] }).keys;
}

/** Claims a valid token for this API carries. */
const validClaims = (issuer: TestIssuer) => ({
  iss: issuer.issuer,
  sub: 'attacker',
  client_id: 'test-client',
  token_use: 'access',
  scope: 'plants/write',
  iat: nowSeconds(),
  exp: nowSeconds() + 300,
});

async function signedWithAttackerKey(
  issuer: TestIssuer,
  header: Record<string, unknown>,
): Promise<string> {
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const jwk = await exportJWK(publicKey);
  const params = { ...header };
  if (params.jwk === true) params.jwk = jwk;
  return new SignJWT(validClaims(issuer))
    .setProtectedHeader({ alg: 'RS256', typ: 'JWT', ...params })
    .sign(privateKey);
}

/** HS256 with the issuer's public key as the HMAC secret: the classic algorithm confusion. */
async function hmacWithPublicKey(issuer: TestIssuer, as: 'pem' | 'jwk'): Promise<string> {
  const rsa = (await publishedKeys(issuer)).find((key) => key.kty === 'RSA');
  if (!rsa?.kid) throw new Error('no RSA key published');
  const secret =
    as === 'pem'
      ? await exportSPKI((await importJWK(rsa, 'RS256', { extractable: true })) as CryptoKey)
      : JSON.stringify(rsa);
  return new SignJWT(validClaims(issuer))
    .setProtectedHeader({ alg: 'HS256', kid: rsa.kid, typ: 'JWT' })
    .sign(new TextEncoder().encode(secret));
}

async function unsigned(issuer: TestIssuer, alg: string): Promise<string> {
  const published = await publishedKeys(issuer);
  return `${b64url({ alg, typ: 'JWT', kid: published[0]?.kid })}.${b64url(validClaims(issuer))}.`;
}

/** A valid token whose payload is swapped after signing. */
async function tampered(issuer: TestIssuer): Promise<string> {
  const [header, , signature] = (await issuer.mint({ claims: { scope: 'plants/read' } })).split(
    '.',
  );
  return `${header}.${b64url(validClaims(issuer))}.${signature}`;
}

/** Registered claims of the wrong type, as only a hostile or broken issuer writes them. */
const wronglyTyped = (claims: Record<string, unknown>) => claims as JWTPayload;

const mint = (options: MintOptions) => (issuer: TestIssuer) => issuer.mint(options);

type TokenCase = [string, (issuer: TestIssuer) => Promise<string>, string];

function expectChallenge(
  result: APIGatewayProxyStructuredResultV2,
  status: 401 | 403,
  challenge: string | RegExp,
) {
  expect(result.statusCode).toBe(status);
  expect(result.headers).toMatchObject(hygieneHeaders);
  expectErrorShape(bodyOf(result), status);
  const header = result.headers?.['www-authenticate'];
  if (typeof challenge === 'string') expect(header).toBe(challenge);
  else expect(header).toMatch(challenge);
}

/** Invokes with a body the store would accept, and checks that it never got that far. */
async function attempt(event: APIGatewayProxyEventV2, harness = api) {
  const id = freshId();
  event.body = `{"id":${id},"name":"Intruder"}`;
  const callsBefore = harness.storeCalls();
  const result = await harness.invoke(event);
  return {
    result,
    async expectStoreUntouched() {
      expect(harness.storeCalls()).toBe(callsBefore);
      expect(await harness.dynalite.getItem(harness.tableName, id)).toBeUndefined();
    },
  };
}

/** RFC 6750's challenge for a bad token; a double quote in the description becomes a single one. */
const invalidToken = (description: string) =>
  `Bearer realm="plant-store", error="invalid_token", error_description="${description.replaceAll('"', "'")}"`;

/** Tokens that fail verification, each with the description its 401 challenge gives. */
const invalidTokens: TokenCase[] = [
  ['alg "none"', (issuer) => unsigned(issuer, 'none'), 'Token algorithm is not allowed'],
  ['alg "NONE"', (issuer) => unsigned(issuer, 'NONE'), 'Token algorithm is not allowed'],
  [
    'HS256 keyed with the public key (PEM)',
    (issuer) => hmacWithPublicKey(issuer, 'pem'),
    'Token algorithm is not allowed',
  ],
  [
    'HS256 keyed with the public key (JWK)',
    (issuer) => hmacWithPublicKey(issuer, 'jwk'),
    'Token algorithm is not allowed',
  ],
  [
    'a kid the JWKS does not publish',
    mint({ unpublishedKey: true }),
    'Token signing key is not known',
  ],
  [
    'a published kid, signed by another key',
    async (issuer) => signedWithAttackerKey(issuer, { kid: (await publishedKeys(issuer))[0]?.kid }),
    'Token signature is invalid',
  ],
  [
    'no kid, signed by another key',
    (issuer) => signedWithAttackerKey(issuer, {}),
    'Token signature is invalid',
  ],
  [
    'the attacker key embedded as "jwk"',
    (issuer) => signedWithAttackerKey(issuer, { jwk: true, kid: 'attacker' }),
    'Token signing key is not known',
  ],
  [
    'a "jku" pointing at the attacker',
    (issuer) =>
      signedWithAttackerKey(issuer, { jku: 'http://127.0.0.1:9/jwks.json', kid: 'attacker' }),
    'Token signing key is not known',
  ],
  ['a payload swapped after signing', tampered, 'Token signature is invalid'],
  ['expired a minute ago', mint({ expiresIn: -60 }), 'Token has expired'],
  ['expired just past the clock tolerance', mint({ expiresIn: -10 }), 'Token has expired'],
  ['no exp claim', mint({ expiresIn: null }), 'Token claim "exp" is invalid'],
  [
    'nbf ten minutes ahead',
    mint({ claims: { nbf: nowSeconds() + 600 } }),
    'Token is not yet valid',
  ],
  [
    'nbf as a string',
    mint({ claims: wronglyTyped({ nbf: String(nowSeconds()) }) }),
    'Token claim "nbf" is invalid',
  ],
  [
    'exp 1e400 (Infinity once parsed)',
    (issuer) =>
      issuer.signClaimsText(
        JSON.stringify(validClaims(issuer)).replace(/"exp":\d+/, '"exp":1e400'),
      ),
    'Token lifetime exceeds 24 hours',
  ],
  [
    'a valid token padded with "=="',
    async (issuer) => `${await issuer.mint()}==`,
    'Token is malformed or invalid',
  ],
  [
    "a valid token with an unused bit set in its signature's last character",
    async (issuer) => respell(await issuer.mint(), 2, withStrayBit),
    'Token is malformed or invalid',
  ],
  ['another issuer', mint({ issuer: 'https://evil.example' }), 'Token issuer is not trusted'],
  [
    'the issuer with a trailing slash',
    async (issuer) => issuer.mint({ issuer: `${issuer.issuer}/` }),
    'Token issuer is not trusted',
  ],
];

/** Claims of tokens that do not carry `required`, though they come close or carry `other`. */
const scopeCases = (required: string, other: string): [string, JWTPayload][] => [
  ['no scope claim', { scope: undefined }],
  [`the other scope only (${other})`, { scope: other }],
  ['the scope as a prefix trick', { scope: `${required}er` }],
  ['the scope with a suffix', { scope: `${required}2 ${required}/` }],
  ['the scope with a prefix', { scope: `x${required}` }],
  ['the scope in upper case', { scope: required.toUpperCase() }],
  ['scopes joined by commas', { scope: `${other},${required}` }],
  ['scopes joined by a tab', { scope: `${other}\t${required}` }],
  ['the scope as an array', { scope: [required] }],
  ['"scp" as a string (only an scp array is read)', { scope: undefined, scp: required }],
];

describe('POST /plants with a token that names us among others', () => {
  it('accepts an aud list containing ours and a scope among others (the control case)', async () => {
    const token = await api.issuer.mint({
      claims: {
        aud: ['other', 'plant-store-api'],
        client_id: undefined,
        scope: 'a plants/write b',
      },
    });

    const result = await api.invoke(fakeEvent({ token, body: `{"id":${freshId()},"name":"Ok"}` }));

    expect(result.statusCode).toBe(200);
  });
});

const otherScope = (scope: Operation['scope']): Operation['scope'] =>
  scope === 'plants/read' ? 'plants/write' : 'plants/read';

/** Every operation of the list, each sent its sample request about a stored plant. */
describe.each(operations)('$method $path ($name) with a hostile or invalid token', (operation) => {
  const { scope } = operation;
  const handler = (event: APIGatewayProxyEventV2) => api.handlers[operation.name](event);

  /** Invokes the operation with `token` on a stored plant, and checks the store was never asked. */
  async function attemptOn(token: string) {
    const id = freshId();
    const created = await api.invoke(
      fakeEvent({ token: await api.issuer.mint(), body: `{"id":${id},"name":"Kept"}` }),
    );
    expect(created.statusCode).toBe(200);
    const event = fakeOperationEvent(operation, checksOf(operation).sample.request(id), { token });
    const callsBefore = api.storeCalls();
    const result = await handler(event);
    return {
      result,
      async expectStoreUntouched() {
        expect(api.storeCalls()).toBe(callsBefore);
        expect(await api.dynalite.getItem(api.tableName, id)).toStrictEqual({
          id: { N: id },
          name: { S: 'Kept' },
        });
      },
    };
  }

  it.each<TokenCase>(invalidTokens)(
    'answers 401 invalid_token for %s, and never reaches the store',
    async (_case, token, description) => {
      const { result, expectStoreUntouched } = await attemptOn(await token(api.issuer));

      expectChallenge(result, 401, invalidToken(description));
      expect(bodyOf(result)).toStrictEqual({ error: 401, message: description });
      await expectStoreUntouched();
    },
  );

  it.each(scopeCases(scope, otherScope(scope)))(
    'answers 403 insufficient_scope for %s, and never reaches the store',
    async (_case, claims) => {
      const { result, expectStoreUntouched } = await attemptOn(await api.issuer.mint({ claims }));

      expectChallenge(
        result,
        403,
        `Bearer realm="plant-store", error="insufficient_scope", error_description="Token lacks the scope '${scope}'", scope="${scope}"`,
      );
      await expectStoreUntouched();
    },
  );

  it('ignores a token in the query string or a cookie: 401 with a bare Bearer challenge', async () => {
    const valid = await api.issuer.mint({ claims: { scope } });
    const sample = checksOf(operation).sample.request(freshId());
    const query = [sample.query, `access_token=${valid}`].filter(Boolean).join('&');
    const event = fakeOperationEvent(operation, { ...sample, query });
    event.cookies = [`access_token=${valid}`];
    event.headers.cookie = `access_token=${valid}`;
    const callsBefore = api.storeCalls();

    const result = await handler(event);

    expectChallenge(result, 401, 'Bearer realm="plant-store"');
    expect(api.storeCalls()).toBe(callsBefore);
  });
});

describe('POST /plants with the token in the wrong place, or not a JWT', () => {
  let valid: string;
  beforeAll(async () => {
    valid = await api.issuer.mint({ expiresIn: 3600 });
  });

  const withoutHeader = (change: (event: APIGatewayProxyEventV2, token: string) => void) => () => {
    const event = fakeEvent({ headers: { authorization: undefined } });
    change(event, valid);
    return event;
  };

  it.each<[string, () => APIGatewayProxyEventV2]>([
    [
      'the query string',
      withoutHeader((event, token) => {
        event.rawQueryString = `access_token=${token}`;
        event.queryStringParameters = { access_token: token };
      }),
    ],
    [
      'a cookie',
      withoutHeader((event, token) => {
        event.cookies = [`access_token=${token}`, `id_token=${token}`];
        event.headers.cookie = `access_token=${token}; id_token=${token}`;
      }),
    ],
    [
      'another header',
      withoutHeader((event, token) => {
        event.headers['x-access-token'] = token;
        event.headers['x-amz-security-token'] = token;
      }),
    ],
  ])('ignores a token in %s: 401 with a bare Bearer challenge', async (_case, event) => {
    const { result, expectStoreUntouched } = await attempt(event());

    expectChallenge(result, 401, 'Bearer realm="plant-store"');
    await expectStoreUntouched();
  });

  const shaped = (authorization: (token: string) => string) => () =>
    fakeEvent({ headers: { authorization: authorization(valid) } });

  it.each<[string, () => APIGatewayProxyEventV2, RegExp | string]>([
    [
      'a token that is not a JWT',
      shaped(() => 'Bearer abc.def'),
      invalidToken('Token is malformed or invalid'),
    ],
    ['a JWT of garbage parts', shaped(() => 'Bearer e30.e30.e30'), /error="invalid_token"/],
  ])('answers 401 for %s, and never reaches the store', async (_case, event, challenge) => {
    const { result, expectStoreUntouched } = await attempt(event());

    expectChallenge(result, 401, challenge);
    await expectStoreUntouched();
  });
});

describe('JWKS rotation and unknown key ids', () => {
  let fresh: PlantApiHarness;
  beforeAll(async () => {
    fresh = await startPlantApi();
  });
  afterAll(() => fresh.close());
  afterEach(() => {
    vi.useRealTimers();
  });

  const invokeWith = (token: string) =>
    fresh.invoke(fakeEvent({ token, body: `{"id":${freshId()},"name":"Rotated"}` }));
  const flood = (count: number) =>
    Promise.all(
      Array.from({ length: count }, async (_, n) =>
        invokeWith(
          await fresh.issuer.mint({ unpublishedKey: true, header: { kid: `made-up-${n}` } }),
        ),
      ),
    );

  it('accepts a newly published key without a restart, and refetches at most once per 30 s however many unknown kids arrive', async () => {
    // Only Date is faked: the key set's cooldown reads Date.now(), so 30 s pass without waiting.
    vi.useFakeTimers({ toFake: ['Date'] });
    const first = await invokeWith(await fresh.issuer.mint());
    const fetchesAfterFirst = fresh.issuer.jwksFetches();
    await fresh.issuer.rotate();
    const rotatedToken = await fresh.issuer.mint();

    const tooSoon = await invokeWith(rotatedToken);
    const floodDuringCooldown = await flood(100);
    const fetchesDuringCooldown = fresh.issuer.jwksFetches();
    vi.setSystemTime(Date.now() + 31_000);
    const afterCooldown = await invokeWith(rotatedToken);
    const fetchesAfterRotation = fresh.issuer.jwksFetches();
    vi.setSystemTime(Date.now() + 31_000);
    const floodAfterCooldown = await flood(100);

    expect(first.statusCode).toBe(200);
    expect(fetchesAfterFirst).toBe(1);
    expect(tooSoon.statusCode).toBe(401);
    expect(floodDuringCooldown.every((result) => result.statusCode === 401)).toBe(true);
    expect(fetchesDuringCooldown).toBe(1);
    expect(afterCooldown.statusCode).toBe(200);
    expect(fetchesAfterRotation).toBe(2);
    expect(floodAfterCooldown.every((result) => result.statusCode === 401)).toBe(true);
    expect(fresh.issuer.jwksFetches()).toBeLessThanOrEqual(3);
  });
});

describe('POST /plants when the issuer cannot be reached', () => {
  it('answers 503 with Retry-After: 5, never 401, and never reaches the store', async () => {
    const cut = await startPlantApi();
    try {
      const token = await cut.issuer.mint();
      await cut.issuer.close();

      const { result, expectStoreUntouched } = await attempt(fakeEvent({ token }), cut);

      expect(result.statusCode).toBe(503);
      expect(result.headers).toMatchObject({ ...hygieneHeaders, 'retry-after': '5' });
      expectErrorShape(bodyOf(result), 503);
      await expectStoreUntouched();
    } finally {
      await cut.close();
    }
  });
});
