import { generateKeyPairSync, type JsonWebKey } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  AmbiguousKeyError,
  createLocalKeySet,
  InvalidKeySetError,
  NoMatchingKeyError,
  UnusableKeyError,
} from '../../../functions/auth/json-web-key-set.ts';

const publicJwk = (type: 'rsa' | 'ec', options: object) =>
  generateKeyPairSync(type as 'rsa', options as { modulusLength: number }).publicKey.export({
    format: 'jwk',
  });

let rsa: JsonWebKey;
let rsaOther: JsonWebKey;
let p256: JsonWebKey;
let p384: JsonWebKey;
beforeAll(() => {
  rsa = publicJwk('rsa', { modulusLength: 2048 });
  rsaOther = publicJwk('rsa', { modulusLength: 2048 });
  p256 = publicJwk('ec', { namedCurve: 'P-256' });
  p384 = publicJwk('ec', { namedCurve: 'P-384' });
});

/** Which published key `alg` and `kid` select, by its `kid`, or the error the set throws. */
function selected(keys: JsonWebKey[], alg: 'RS256' | 'ES256', kid: unknown) {
  const set = createLocalKeySet({ keys });
  try {
    const key = set(alg, kid).export({ format: 'jwk' });
    return keys.find((jwk) => jwk.n === key.n && jwk.x === key.x)?.kid;
  } catch (error) {
    return (error as Error).constructor;
  }
}

describe('createLocalKeySet', () => {
  it.each<[string, () => JsonWebKey[], 'RS256' | 'ES256', unknown, unknown]>([
    [
      "the key with the token's kid",
      () => [
        { ...rsa, kid: 'a' },
        { ...rsaOther, kid: 'b' },
      ],
      'RS256',
      'b',
      'b',
    ],
    [
      "the one key of the algorithm's type, for a token without kid",
      () => [
        { ...rsa, kid: 'a' },
        { ...p256, kid: 'e' },
      ],
      'RS256',
      undefined,
      'a',
    ],
    [
      'a P-256 key for ES256',
      () => [
        { ...p384, kid: 'x' },
        { ...p256, kid: 'e' },
      ],
      'ES256',
      undefined,
      'e',
    ],
    [
      'a key whose alg, use, key_ops and ext allow it',
      () => [{ ...rsa, kid: 'a', alg: 'RS256', use: 'sig', key_ops: ['verify'], ext: true }],
      'RS256',
      'a',
      'a',
    ],
    [
      'no key for a kid the set does not publish',
      () => [{ ...rsa, kid: 'a' }],
      'RS256',
      'b',
      NoMatchingKeyError,
    ],
    [
      'no key for a kid that is not a string',
      () => [{ ...rsa, kid: '1' }],
      'RS256',
      1,
      NoMatchingKeyError,
    ],
    ['no RSA key for ES256', () => [{ ...rsa, kid: 'a' }], 'ES256', 'a', NoMatchingKeyError],
    ['no P-384 key for ES256', () => [{ ...p384, kid: 'x' }], 'ES256', 'x', NoMatchingKeyError],
    [
      'no key published for another alg',
      () => [{ ...rsa, kid: 'a', alg: 'RS512' }],
      'RS256',
      'a',
      NoMatchingKeyError,
    ],
    [
      'no key published for encryption',
      () => [{ ...rsa, kid: 'a', use: 'enc' }],
      'RS256',
      'a',
      NoMatchingKeyError,
    ],
    [
      'no key whose key_ops leave out verify',
      () => [{ ...rsa, kid: 'a', key_ops: ['encrypt'] }],
      'RS256',
      'a',
      NoMatchingKeyError,
    ],
    [
      'no key with repeated key_ops',
      () => [{ ...rsa, kid: 'a', key_ops: ['verify', 'verify'] }],
      'RS256',
      'a',
      NoMatchingKeyError,
    ],
    [
      'no key with an ext that is not a boolean',
      () => [{ ...rsa, kid: 'a', ext: 'yes' } as JsonWebKey],
      'RS256',
      'a',
      NoMatchingKeyError,
    ],
    [
      'no one key for a token without kid when two could match',
      () => [
        { ...rsa, kid: 'a' },
        { ...rsaOther, kid: 'b' },
      ],
      'RS256',
      undefined,
      AmbiguousKeyError,
    ],
  ])('selects %s', (_case, keys, alg, kid, expected) => {
    expect(selected(keys(), alg, kid)).toBe(expected);
  });

  it.each<[string, () => JsonWebKey]>([
    ['a private key', () => ({ ...rsa, d: rsa.n, kid: 'a' })],
    ['an RSA key of 1024 bits', () => ({ ...publicJwk('rsa', { modulusLength: 1024 }), kid: 'a' })],
    ['an RSA key whose modulus is not base64url', () => ({ ...rsa, n: '!!', kid: 'a' })],
  ])('refuses to use %s, for the tokens naming it only (red team L1)', (_case, jwk) => {
    const unusable: UnusableKeyError[] = [];
    const set = createLocalKeySet(
      { keys: [jwk(), { ...rsaOther, kid: 'b' }] },
      { onUnusableKey: (error) => unusable.push(error) },
    );

    expect(() => set('RS256', 'a')).toThrow(UnusableKeyError);
    expect(() => set('RS256', 'a')).toThrow(UnusableKeyError);
    expect(set('RS256', 'b').asymmetricKeyType).toBe('rsa');
    // Told once, however many tokens name it: the operator's log line, not one per request.
    expect(unusable.map((error) => error.kid)).toStrictEqual(['a']);
  });

  it.each([
    ['not an object', '[]'],
    ['no keys', '{}'],
    ['keys not a list', '{"keys":5}'],
    ['a key that is not an object', '{"keys":["k"]}'],
    ['a key that is null', '{"keys":[null]}'],
  ])('refuses a key set with %s', (_case, document) => {
    expect(() => createLocalKeySet(JSON.parse(document))).toThrow(InvalidKeySetError);
  });

  it('imports each key once', () => {
    const set = createLocalKeySet({ keys: [{ ...rsa, kid: 'a' }] });

    expect(set('RS256', 'a')).toBe(set('RS256', 'a'));
  });
});
