import { generateKeyPairSync, type KeyObject, sign as signBytes } from 'node:crypto';
import { type JWTPayload, SignJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { UnauthorizedError } from '../../../functions/auth/auth-errors.ts';
import { createLocalKeySet } from '../../../functions/auth/json-web-key-set.ts';
import type { RemoteKeySet } from '../../../functions/auth/remote-key-set.ts';
import {
  checkClaims,
  maxTokenLifetimeSeconds,
  verifyJwt,
} from '../../../functions/auth/token-verifier.ts';
import { respell, withStrayBit } from '../../support/token-spelling.ts';

const now = 1_750_000_000;
const options = { audiences: ['plant-store-api', 'cli-client'] };

/** A valid Cognito-style access token's claims: no `aud`, our `client_id`, an hour to live. */
const cognito = (claims: Record<string, unknown> = {}) =>
  ({
    client_id: 'cli-client',
    token_use: 'access',
    iat: now,
    exp: now + 3600,
    ...claims,
  }) as JWTPayload;

/** The message each refusal reason of checkClaims gives the client. */
const messages: Record<string, string> = {
  not_access_token: 'Token is not an access token',
  audience: 'Token audience is not accepted',
  issued_in_future: 'Token is issued in the future',
  too_long_lived: 'Token lifetime exceeds 24 hours',
};

function refusal(payload: JWTPayload): { reason: string; message: string } | undefined {
  try {
    checkClaims(payload, now, options);
    return undefined;
  } catch (error) {
    if (error instanceof UnauthorizedError) return { reason: error.reason, message: error.message };
    throw error;
  }
}

describe('checkClaims', () => {
  it.each<[string, JWTPayload]>([
    ['client_id ours, no aud', cognito()],
    ['aud ours, no client_id', cognito({ client_id: undefined, aud: 'plant-store-api' })],
    ['aud ours and client_id another', cognito({ aud: 'plant-store-api', client_id: 'x' })],
    ['aud a list containing ours', cognito({ aud: ['other', 'cli-client'] })],
    ['no token_use', cognito({ token_use: undefined })],
    ['iat at the clock tolerance ahead', cognito({ iat: now + 5, exp: now + 65 })],
    ['no iat, exp 24 h ahead', cognito({ iat: undefined, exp: now + maxTokenLifetimeSeconds })],
    ['a lifetime of exactly 24 h', cognito({ exp: now + maxTokenLifetimeSeconds })],
    ['issued 23 h ago', cognito({ iat: now - 23 * 3600, exp: now + 60 })],
  ])('accepts %s', (_case, payload) => {
    expect(refusal(payload)).toBeUndefined();
  });

  it.each<[string, JWTPayload, string, string?]>([
    ['an ID token', cognito({ token_use: 'id' }), 'not_access_token'],
    ['aud another API, client_id ours', cognito({ aud: 'billing-api' }), 'audience'],
    ['aud and client_id both others', cognito({ aud: 'someone-else', client_id: 'x' }), 'audience'],
    ['an aud that only starts like ours', cognito({ aud: 'plant-store-api-evil' }), 'audience'],
    ['aud a list of others, client_id ours', cognito({ aud: ['a', 'b'] }), 'audience'],
    ['aud an empty list, client_id ours', cognito({ aud: [] }), 'audience'],
    ['neither aud nor client_id', cognito({ client_id: undefined }), 'audience'],
    ['client_id not a string', cognito({ client_id: ['cli-client'] }), 'audience'],
    ['iat 6 s ahead', cognito({ iat: now + 6, exp: now + 66 }), 'issued_in_future'],
    ['iat ten minutes ahead', cognito({ iat: now + 600, exp: now + 900 }), 'issued_in_future'],
    ['iat Infinity', cognito({ iat: Number.POSITIVE_INFINITY }), 'issued_in_future'],
    ['iat a string', cognito({ iat: String(now) }), 'invalid', 'Token claim "iat" is invalid'],
    ['no exp', cognito({ exp: undefined }), 'invalid', 'Token claim "exp" is invalid'],
    ['exp a string', cognito({ exp: String(now + 60) }), 'invalid', 'Token claim "exp" is invalid'],
    ['exp 1e300', cognito({ exp: 1e300 }), 'too_long_lived'],
    ['exp Infinity', cognito({ exp: Number.POSITIVE_INFINITY }), 'too_long_lived'],
    ['iat -Infinity', cognito({ iat: Number.NEGATIVE_INFINITY }), 'too_long_lived'],
    [
      'a lifetime of 24 h and 6 s',
      cognito({ exp: now + maxTokenLifetimeSeconds + 6 }),
      'too_long_lived',
    ],
    [
      'no iat, exp 24 h and 6 s ahead',
      cognito({ iat: undefined, exp: now + maxTokenLifetimeSeconds + 6 }),
      'too_long_lived',
    ],
    ['issued two days ago', cognito({ iat: now - 2 * 86_400, exp: now + 60 }), 'too_long_lived'],
  ])('refuses %s', (_case, payload, reason, message = messages[reason]) => {
    expect(refusal(payload)).toStrictEqual({ reason, message });
  });

  it('refuses every token when no audience is configured (fails closed)', () => {
    expect(() => checkClaims(cognito(), now, { audiences: [] })).toThrow(
      'Token audience is not accepted',
    );
  });
});

/** The order n of P-256's base point: an ECDSA signature (r, s) has a twin (r, n - s). */
const p256Order = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;

describe('verifyJwt', () => {
  const issuer = 'https://issuer.example';
  let privateKey: KeyObject;
  let sign: (claims: Record<string, unknown>) => Promise<string>;
  let keys: RemoteKeySet;

  beforeAll(() => {
    const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    privateKey = pair.privateKey;
    const local = createLocalKeySet({
      keys: [{ ...pair.publicKey.export({ format: 'jwk' }), kid: 'k', alg: 'ES256' }],
    });
    keys = async (alg, kid) => local(alg, kid);
    sign = (claims) =>
      new SignJWT(cognito({ iss: issuer, iat: undefined, exp: undefined, ...claims }))
        .setProtectedHeader({ alg: 'ES256', kid: 'k' })
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(privateKey);
  });

  /** Any header and claims text, signed with the published key: what no JWT library would write. */
  const signRaw = (header: Record<string, unknown>, claims: string | Buffer) => {
    const input = `${b64url(JSON.stringify(header))}.${b64url(claims)}`;
    const signature = signBytes('sha256', Buffer.from(input), {
      key: privateKey,
      dsaEncoding: 'ieee-p1363',
    });
    return `${input}.${signature.toString('base64url')}`;
  };
  const b64url = (text: string | Buffer) => Buffer.from(text).toString('base64url');
  const nowSeconds = () => Math.floor(Date.now() / 1000);
  const claimsText = (claims: Record<string, unknown>) =>
    JSON.stringify({
      ...cognito({ iss: issuer, iat: nowSeconds(), exp: nowSeconds() + 300 }),
      ...claims,
    });

  const reasonFor = async (token: string) => {
    const error = await verifyJwt(token, keys, { issuer, ...options }).catch((e: unknown) => e);
    return error instanceof UnauthorizedError ? [error.reason, error.message] : error;
  };

  it.each<[string, Record<string, unknown>, string[]]>([
    [
      'a space-separated scope (RFC 9068, Cognito)',
      { scope: 'plants/read plants/write' },
      ['plants/read', 'plants/write'],
    ],
    [
      'an scp array (Okta)',
      { scp: ['plants/read', 'plants/write'] },
      ['plants/read', 'plants/write'],
    ],
    ['neither', {}, []],
  ])('reads the scopes of a verified token from %s', async (_case, claims, scopes) => {
    const token = await sign(claims);

    const caller = await verifyJwt(token, keys, { issuer, ...options });

    expect(caller).toStrictEqual({ subject: undefined, clientId: 'cli-client', scopes });
  });

  it.each<[string, (token: string) => string]>([
    ['the signature padded with "=="', (token) => `${token}==`],
    ['the header padded with "=="', (token) => respell(token, 0, (header) => `${header}==`)],
    [
      "the signature's last character with an unused bit set",
      (token) => respell(token, 2, withStrayBit),
    ],
    [
      "the header's last character with an unused bit set",
      (token) => respell(token, 0, withStrayBit),
    ],
  ])('refuses a signed token respelled as %s', async (_case, respelled) => {
    const token = await sign({ scope: 'plants/write' });

    const accepted = await verifyJwt(token, keys, { issuer, ...options });

    expect(accepted.scopes).toStrictEqual(['plants/write']);
    expect(await reasonFor(respelled(token))).toStrictEqual([
      'invalid',
      'Token is malformed or invalid',
    ]);
  });

  it('accepts ES256 signatures whichever half of the curve order S falls in (decision 0115)', async () => {
    const byHalf = new Map<string, string>();
    while (byHalf.size < 2) {
      const token = await sign({ scope: 'plants/write' });
      const signature = Buffer.from(token.split('.')[2] ?? '', 'base64url');
      const s = BigInt(`0x${signature.toString('hex', 32)}`);
      byHalf.set(s > p256Order / 2n ? 'high' : 'low', token);
    }

    const verdicts = await Promise.all(
      ['high', 'low'].map((half) =>
        verifyJwt(byHalf.get(half) ?? '', keys, { issuer, ...options }),
      ),
    );

    expect(verdicts.map((caller) => caller.scopes)).toStrictEqual([
      ['plants/write'],
      ['plants/write'],
    ]);
  });

  it.each<[string, () => string, string, string]>([
    [
      'a "crit" header (no extension is understood)',
      () => signRaw({ alg: 'ES256', kid: 'k', crit: ['exp'], exp: 1 }, claimsText({})),
      'invalid',
      'Token is malformed or invalid',
    ],
    [
      'no "alg"',
      () => signRaw({ kid: 'k' }, claimsText({})),
      'invalid',
      'Token is malformed or invalid',
    ],
    [
      'an empty "alg"',
      () => signRaw({ alg: '', kid: 'k' }, claimsText({})),
      'invalid',
      'Token is malformed or invalid',
    ],
    [
      '"alg" not a string',
      () => signRaw({ alg: ['ES256'], kid: 'k' }, claimsText({})),
      'invalid',
      'Token is malformed or invalid',
    ],
    [
      '"alg" ES384',
      () => signRaw({ alg: 'ES384', kid: 'k' }, claimsText({})),
      'algorithm',
      'Token algorithm is not allowed',
    ],
    [
      '"alg" RS256 on an EC key',
      () => signRaw({ alg: 'RS256', kid: 'k' }, claimsText({})),
      'unknown_key',
      'Token signing key is not known',
    ],
    [
      'a "kid" that is a number',
      () => signRaw({ alg: 'ES256', kid: 1 }, claimsText({})),
      'unknown_key',
      'Token signing key is not known',
    ],
    [
      'a signature one byte short',
      () => {
        const token = signRaw({ alg: 'ES256', kid: 'k' }, claimsText({}));
        const [header, payload, signature = ''] = token.split('.');
        return `${header}.${payload}.${Buffer.from(signature, 'base64url').subarray(1).toString('base64url')}`;
      },
      'signature',
      'Token signature is invalid',
    ],
    [
      'claims that are a JSON array',
      () => signRaw({ alg: 'ES256', kid: 'k' }, '[1]'),
      'invalid',
      'Token is malformed or invalid',
    ],
    [
      'valid claims with a string that is not UTF-8',
      () =>
        signRaw(
          { alg: 'ES256', kid: 'k' },
          Buffer.concat([
            Buffer.from(`${claimsText({}).slice(0, -1)},"note":"`),
            Buffer.from([0xff]),
            Buffer.from('"}'),
          ]),
        ),
      'invalid',
      'Token is malformed or invalid',
    ],
    [
      'claims that are not JSON',
      () => signRaw({ alg: 'ES256', kid: 'k' }, '{"exp":'),
      'invalid',
      'Token is malformed or invalid',
    ],
    [
      'no "iss"',
      () => signRaw({ alg: 'ES256', kid: 'k' }, claimsText({ iss: undefined })),
      'issuer',
      'Token issuer is not trusted',
    ],
    [
      '"iss" null',
      () => signRaw({ alg: 'ES256', kid: 'k' }, claimsText({ iss: null })),
      'issuer',
      'Token issuer is not trusted',
    ],
    [
      '"exp" null',
      () => signRaw({ alg: 'ES256', kid: 'k' }, claimsText({ exp: null })),
      'invalid',
      'Token claim "exp" is invalid',
    ],
    [
      '"iat" a string',
      () => signRaw({ alg: 'ES256', kid: 'k' }, claimsText({ iat: '1' })),
      'invalid',
      'Token claim "iat" is invalid',
    ],
    [
      '"nbf" ahead and "exp" passed (nbf is checked first)',
      () =>
        signRaw(
          { alg: 'ES256', kid: 'k' },
          claimsText({ nbf: nowSeconds() + 600, exp: nowSeconds() - 600 }),
        ),
      'not_yet_valid',
      'Token is not yet valid',
    ],
    [
      '"exp" passed by the clock tolerance exactly',
      () => signRaw({ alg: 'ES256', kid: 'k' }, claimsText({ exp: nowSeconds() - 5 })),
      'expired',
      'Token has expired',
    ],
  ])('refuses a signed token with %s', async (_case, token, reason, message) => {
    expect(await reasonFor(token())).toStrictEqual([reason, message]);
  });

  it.each([
    ['"exp" passed by less than the clock tolerance', 'exp', -4],
    ['"nbf" ahead by the clock tolerance', 'nbf', 5],
  ])('accepts a signed token with %s', async (_case, claim, offset) => {
    const token = signRaw(
      { alg: 'ES256', kid: 'k' },
      claimsText({ [claim]: nowSeconds() + offset, scope: 'plants/write' }),
    );

    const caller = await verifyJwt(token, keys, { issuer, ...options });

    expect(caller.scopes).toStrictEqual(['plants/write']);
  });

  it('applies checkClaims to a verified token', async () => {
    const token = await sign({ aud: 'billing-api' });

    expect(await reasonFor(token)).toStrictEqual(['audience', 'Token audience is not accepted']);
  });
});
