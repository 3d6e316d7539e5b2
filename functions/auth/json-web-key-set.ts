import type { JsonWebKey, KeyObject } from 'node:crypto';

// The built-in itself, not its ESM facade (docs/decisions/0003-built-ins-without-esm-facades.md).
const { createPublicKey } = process.getBuiltinModule('node:crypto');

/**
 * The signature algorithms a token may use, with the key each needs (RFC 7518 section 3.1).
 * Asymmetric only: HMAC would let anyone holding the public key sign, and `none` signs nothing.
 * RS256 is what Cognito, Auth0, Entra ID and Okta issue by default.
 */
const algorithms = {
  RS256: { kty: 'RSA' },
  ES256: { kty: 'EC', crv: 'P-256' },
} as const satisfies Record<string, { readonly kty: string; readonly crv?: string }>;

export type Algorithm = keyof typeof algorithms;

export const isAlgorithm = (alg: unknown): alg is Algorithm =>
  typeof alg === 'string' && Object.hasOwn(algorithms, alg);

/** The key set publishes no usable key for the token's `alg` and `kid`. */
export class NoMatchingKeyError extends Error {
  constructor() {
    super('No key of the key set matches the token');
    this.name = 'NoMatchingKeyError';
  }
}

/** A token without `kid` that more than one key of the set could have signed. */
export class AmbiguousKeyError extends Error {
  constructor() {
    super('More than one key of the key set matches the token');
    this.name = 'AmbiguousKeyError';
  }
}

/** The issuer's document is not a JWK Set. */
export class InvalidKeySetError extends Error {
  constructor(message: string, cause?: unknown) {
    super(message, { cause });
    this.name = 'InvalidKeySetError';
  }
}

/**
 * The one key of the set that matches a token cannot be used: private members, RSA under 2048
 * bits, or members `node:crypto` cannot read. The issuer's mistake, but one that only tokens
 * naming that key meet: they are refused, and every other key of the set still verifies.
 */
export class UnusableKeyError extends Error {
  readonly kid: unknown;

  constructor(message: string, kid: unknown, cause?: unknown) {
    super(message, { cause });
    this.name = 'UnusableKeyError';
    this.kid = kid;
  }
}

/** The key that verifies a token with this `alg` and `kid` (from its protected header). */
export type LocalKeySet = (alg: Algorithm, kid: unknown) => KeyObject;

type Jwk = Readonly<Record<string, unknown>>;

/** RSA keys below 2048 bits are refused (RFC 7518 section 3.3), as jose refuses them. */
const minRsaBits = 2048;

/** Members only a private JWK has (RFC 7518 section 6): a key set must publish public keys only. */
const privateMembers = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth'];

export type LocalKeySetOptions = {
  /**
   * Told once per key of this set that cannot be used, when a token first names it: the issuer's
   * operator has a key to fix. @default nothing
   */
  readonly onUnusableKey?: (error: UnusableKeyError) => void;
};

/**
 * A fetched JWK Set, read by jose's `createLocalJWKSet` rules: a key matches a token when its
 * `kty` (and `crv`) fit the token's `alg`, its `kid` equals the token's (any key, for a token
 * without one), and its `alg`, `use`, `key_ops` and `ext`, where present, allow verifying with
 * that algorithm. Exactly one key must match. Each key is imported with `node:crypto` once, and a
 * key that cannot be is refused as often as it is named, without trying again.
 */
export function createLocalKeySet(
  document: unknown,
  { onUnusableKey }: LocalKeySetOptions = {},
): LocalKeySet {
  const keys = (isPlainObject(document) ? document.keys : undefined) as unknown;
  if (!Array.isArray(keys) || !keys.every(isPlainObject)) {
    throw new InvalidKeySetError('JSON Web Key Set malformed');
  }
  const imported = new Map<Jwk, KeyObject | UnusableKeyError>();
  return (alg, kid) => {
    const candidates = keys.filter((jwk) => matches(jwk, alg, kid));
    const [jwk] = candidates;
    if (jwk === undefined) throw new NoMatchingKeyError();
    if (candidates.length > 1) throw new AmbiguousKeyError();
    let key = imported.get(jwk);
    if (key === undefined) {
      key = importKey(jwk, alg);
      imported.set(jwk, key);
      if (key instanceof UnusableKeyError) onUnusableKey?.(key);
    }
    if (key instanceof UnusableKeyError) throw key;
    return key;
  };
}

function matches(jwk: Jwk, alg: Algorithm, kid: unknown): boolean {
  const { kty, crv } = algorithms[alg] as { readonly kty: string; readonly crv?: string };
  const keyOps = jwk.key_ops;
  return (
    jwk.kty === kty &&
    (crv === undefined || jwk.crv === crv) &&
    (kid === undefined || (typeof kid === 'string' && jwk.kid === kid)) &&
    (jwk.alg === undefined || jwk.alg === alg) &&
    (jwk.use === undefined || jwk.use === 'sig') &&
    (jwk.ext === undefined || typeof jwk.ext === 'boolean') &&
    (keyOps === undefined ||
      (Array.isArray(keyOps) &&
        keyOps.includes('verify') &&
        keyOps.every((op, index) => typeof op === 'string' && keyOps.indexOf(op) === index)))
  );
}

/** The key, or why it cannot be used. */
function importKey(jwk: Jwk, alg: Algorithm): KeyObject | UnusableKeyError {
  if (privateMembers.some((member) => Object.hasOwn(jwk, member))) {
    return new UnusableKeyError('JSON Web Key Set members must be public keys', jwk.kid);
  }
  let key: KeyObject;
  try {
    key = createPublicKey({ key: jwk as JsonWebKey, format: 'jwk' });
  } catch (error) {
    return new UnusableKeyError(`The ${alg} key of the key set cannot be imported`, jwk.kid, error);
  }
  const bits = key.asymmetricKeyDetails?.modulusLength;
  if (alg === 'RS256' && (bits === undefined || bits < minRsaBits)) {
    return new UnusableKeyError(
      `The RS256 key of the key set is shorter than ${minRsaBits} bits`,
      jwk.kid,
    );
  }
  return key;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
