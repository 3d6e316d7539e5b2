import type { Agent } from 'node:http';
import { errorChain, jsonLogger, type Logger } from '../log.ts';
import { IssuerUnavailableError, issuerRetrySeconds, UnauthorizedError } from './auth-errors.ts';
import { jsonObject, malformedToken, readCompactJws } from './compact-jws.ts';
import {
  AmbiguousKeyError,
  isAlgorithm,
  NoMatchingKeyError,
  UnusableKeyError,
} from './json-web-key-set.ts';
import {
  createRemoteKeySet,
  type RemoteKeySet,
  type RemoteKeySetOptions,
} from './remote-key-set.ts';

// The built-in itself, not its ESM facade (docs/decisions/0003-built-ins-without-esm-facades.md).
const { verify } = process.getBuiltinModule('node:crypto');

export type VerifiedToken = {
  readonly subject: string | undefined;
  readonly clientId: string | undefined;
  readonly scopes: readonly string[];
};

export type TokenVerifier = (token: string) => Promise<VerifiedToken>;

export type JwtClaims = Readonly<Record<string, unknown>>;

export type JwtVerifierOptions = {
  readonly issuer: string;
  readonly jwksUrl: URL;
  /** A present `aud` must name one; only without `aud` (Cognito) is `client_id` matched. */
  readonly audiences: readonly string[];
};

/** Issuer and service clocks are NTP-synced; a few seconds absorb the rest. */
const clockToleranceSeconds = 5;

/** Issuers' tokens live a day at most: longer is a misconfigured issuer or a forged `exp`. */
export const maxTokenLifetimeSeconds = 24 * 3600;

/** Rotation works without a restart, made-up key ids cannot hammer the issuer (docs/decisions/0149-key-set-outage.md). */
export const keySetSettings = {
  timeoutMs: 3000,
  cooldownMs: 30_000,
  cacheMaxAgeMs: 600_000,
  retryMs: issuerRetrySeconds * 1000,
  staleIfErrorMs: 3_600_000,
} as const satisfies Partial<RemoteKeySetOptions>;

/** Logs an unusable published key and a stale set in use: no failure counter shows either. */
export function createJwtVerifier(
  options: JwtVerifierOptions,
  {
    prefetchKeys = false,
    agent,
    log = jsonLogger,
    keySet,
  }: {
    readonly prefetchKeys?: boolean;
    readonly agent?: Agent;
    readonly log?: Logger;
    /** For tests. */
    readonly keySet?: Partial<Pick<RemoteKeySetOptions, 'now' | 'timeoutMs'>>;
  } = {},
): TokenVerifier {
  const keys = createRemoteKeySet(options.jwksUrl, {
    ...keySetSettings,
    ...keySet,
    prefetch: prefetchKeys,
    agent,
    onUnusableKey: (error) =>
      log('warn', 'unusable key in the issuer key set', {
        kid: typeof error.kid === 'string' ? error.kid : undefined,
        jwksHost: options.jwksUrl.host,
        error: errorChain(error),
      }),
    onStaleKeys: (ageMs, error) =>
      log('warn', 'issuer key set past its age in use: it could not be fetched', {
        jwksHost: options.jwksUrl.host,
        ageSeconds: Math.floor(ageMs / 1000),
        error: errorChain(error),
      }),
  });
  return (token) => verifyJwt(token, keys, options);
}

/** In jose's `jwtVerify` order and answers (docs/decisions/0116-jwt-verified-with-node-crypto.md). */
export async function verifyJwt(
  token: string,
  keys: RemoteKeySet,
  options: Pick<JwtVerifierOptions, 'issuer' | 'audiences'>,
): Promise<VerifiedToken> {
  const jws = readCompactJws(token);
  const { alg, kid, crit } = jws.header;
  // RFC 7515 4.1.11: no extension is understood here, so a critical one cannot be honoured.
  if (crit !== undefined || typeof alg !== 'string' || alg === '') throw malformedToken();
  if (!isAlgorithm(alg)) {
    throw new UnauthorizedError('algorithm', 'Token algorithm is not allowed');
  }
  let key: Awaited<ReturnType<RemoteKeySet>>;
  try {
    key = await keys(alg, kid);
  } catch (error) {
    if (error instanceof NoMatchingKeyError) {
      throw new UnauthorizedError('unknown_key', 'Token signing key is not known', error);
    }
    if (error instanceof AmbiguousKeyError) throw malformedToken(error);
    // The issuer published a key we refuse: this token cannot be verified, others still can.
    if (error instanceof UnusableKeyError) {
      throw new UnauthorizedError('unusable_key', 'Token signing key is not usable', error);
    }
    throw new IssuerUnavailableError(error);
  }
  // ES256 signatures are r || s (RFC 7518 3.4), which OpenSSL calls IEEE P1363.
  const verifyKey = alg === 'ES256' ? { key, dsaEncoding: 'ieee-p1363' as const } : key;
  let signed = false;
  try {
    signed = verify('sha256', jws.signingInput, verifyKey, jws.signature);
  } catch {
    // A signature of the wrong length for the key: no more valid than a wrong one.
  }
  if (!signed) throw new UnauthorizedError('signature', 'Token signature is invalid');
  const claims = jsonObject(jws.payload);
  const now = Math.floor(Date.now() / 1000);
  checkRegisteredClaims(claims, now, options.issuer);
  checkClaims(claims, now, options);
  const clientId = typeof claims.client_id === 'string' ? claims.client_id : undefined;
  const subject = typeof claims.sub === 'string' ? claims.sub : undefined;
  return { subject, clientId, scopes: grantedScopes(claims) };
}

/** RFC 7519 4.1, give or take the clock tolerance. */
function checkRegisteredClaims(claims: JwtClaims, now: number, issuer: string): void {
  if (!Object.hasOwn(claims, 'iss') || claims.iss !== issuer) {
    throw new UnauthorizedError('issuer', 'Token issuer is not trusted');
  }
  if (!Object.hasOwn(claims, 'exp')) throw invalidClaim('exp');
  numericDate(claims, 'iat');
  const nbf = numericDate(claims, 'nbf');
  if (nbf !== undefined && nbf > now + clockToleranceSeconds) {
    throw new UnauthorizedError('not_yet_valid', 'Token is not yet valid');
  }
  const exp = numericDate(claims, 'exp');
  if (exp !== undefined && exp <= now - clockToleranceSeconds) {
    throw new UnauthorizedError('expired', 'Token has expired');
  }
}

function numericDate(claims: JwtClaims, claim: string): number | undefined {
  const value = claims[claim];
  if (value !== undefined && typeof value !== 'number') throw invalidClaim(claim);
  return value;
}

const invalidClaim = (claim: string) =>
  new UnauthorizedError('invalid', `Token claim "${claim}" is invalid`);

/** This API's own rules: the kind of token, its audience and its age. `now` is in seconds. */
export function checkClaims(
  payload: JwtClaims,
  now: number,
  options: Pick<JwtVerifierOptions, 'audiences'>,
): void {
  if (payload.token_use !== undefined && payload.token_use !== 'access') {
    throw new UnauthorizedError('not_access_token', 'Token is not an access token');
  }
  if (!acceptsAudience(payload, options.audiences)) {
    throw new UnauthorizedError('audience', 'Token audience is not accepted');
  }
  const { iat, exp } = payload;
  if (iat !== undefined && typeof iat !== 'number') {
    throw new UnauthorizedError('invalid', 'Token claim "iat" is invalid');
  }
  if (iat !== undefined && iat > now + clockToleranceSeconds) {
    throw new UnauthorizedError('issued_in_future', 'Token is issued in the future');
  }
  if (typeof exp !== 'number') {
    throw new UnauthorizedError('invalid', 'Token claim "exp" is invalid');
  }
  // JSON's 1e400 parses to Infinity, which is a number and later than any date.
  if (exp - (iat ?? now) > maxTokenLifetimeSeconds + clockToleranceSeconds) {
    throw new UnauthorizedError('too_long_lived', 'Token lifetime exceeds 24 hours');
  }
}

/** RFC 9068's `scope`, or Okta's `scp`; Entra ID's `roles` are no scopes. */
function grantedScopes(payload: JwtClaims): string[] {
  if (typeof payload.scope === 'string') return payload.scope.split(' ').filter(Boolean);
  if (Array.isArray(payload.scp)) return payload.scp.filter((scope) => typeof scope === 'string');
  return [];
}

/** A present `aud` decides (RFC 9068 4): many issuers put `client_id` in every token. */
function acceptsAudience(payload: JwtClaims, audiences: readonly string[]): boolean {
  const { aud, client_id: clientId } = payload;
  if (aud === undefined) return typeof clientId === 'string' && audiences.includes(clientId);
  return (Array.isArray(aud) ? aud : [aud]).some((value) => audiences.includes(value));
}
