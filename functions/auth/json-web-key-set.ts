import type { JsonWebKey, KeyObject } from 'node:crypto';

// The built-in itself, not its ESM facade (docs/decisions/0003-built-ins-without-esm-facades.md).
const { createPublicKey } = process.getBuiltinModule('node:crypto');

/** Asymmetric only (RFC 7518 3.1): with HMAC anyone holding the public key could sign. */
const algorithms = {
  RS256: { kty: 'RSA' },
  ES256: { kty: 'EC', crv: 'P-256' },
} as const satisfies Record<string, { readonly kty: string; readonly crv?: string }>;

export type Algorithm = keyof typeof algorithms;

export const isAlgorithm = (alg: unknown): alg is Algorithm =>
  typeof alg === 'string' && Object.hasOwn(algorithms, alg);

export class NoMatchingKeyError extends Error {
  constructor() {
    super('No key of the key set matches the token');
    this.name = 'NoMatchingKeyError';
  }
}

export class AmbiguousKeyError extends Error {
  constructor() {
    super('More than one key of the key set matches the token');
    this.name = 'AmbiguousKeyError';
  }
}

export class InvalidKeySetError extends Error {
  constructor(message: string, cause?: unknown) {
    super(message, { cause });
    this.name = 'InvalidKeySetError';
  }
}

/** The issuer's mistake, met only by tokens naming that key: the set's other keys still verify. */
export class UnusableKeyError extends Error {
  readonly kid: unknown;

  constructor(message: string, kid: unknown, cause?: unknown) {
    super(message, { cause });
    this.name = 'UnusableKeyError';
    this.kid = kid;
  }
}

export type LocalKeySet = (alg: Algorithm, kid: unknown) => KeyObject;

type Jwk = Readonly<Record<string, unknown>>;

/** RFC 7518 3.3, as jose. */
const minRsaBits = 2048;

/** Members only a private JWK has (RFC 7518 6). */
const privateMembers = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth'];

export type LocalKeySetOptions = {
  /** Once per unusable key, when a token first names it. */
  readonly onUnusableKey?: (error: UnusableKeyError) => void;
};

/** jose's `createLocalJWKSet` rules; each key is imported once, an unusable one never again. */
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
