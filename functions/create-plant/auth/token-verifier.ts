import { errors, type JWTPayload, type JWTVerifyGetKey, jwtVerify } from 'jose';
import { HttpError } from '../errors.ts';
import { UnauthorizedError } from './challenge.ts';
import { createRemoteKeySet } from './remote-key-set.ts';

export type VerifiedToken = {
  readonly subject: string | undefined;
  readonly clientId: string | undefined;
  readonly scopes: readonly string[];
};

/** The port the handler depends on: a bearer token in, verified claims out, or an error to answer. */
export type TokenVerifier = (token: string) => Promise<VerifiedToken>;

export type JwtVerifierOptions = {
  readonly issuer: string;
  readonly jwksUrl: URL;
  /** Accepted `aud` or Cognito-style `client_id` values; empty accepts any. */
  readonly audiences: readonly string[];
};

/**
 * Asymmetric algorithms only: HMAC would let anyone holding the public key sign, and `none`
 * signs nothing. RS256 is what Cognito, Auth0, Entra ID and Okta issue by default.
 */
export const allowedAlgorithms = ['RS256', 'ES256'];

/** Issuer and service clocks are NTP-synced; a few seconds absorb the rest. */
const clockToleranceSeconds = 5;

/**
 * A verifier backed by the issuer's JWKS. The key set is fetched once, cached for ten minutes,
 * and refetched early only for an unknown `kid`, at most every 30 s, so rotation works without a
 * restart while a flood of made-up key ids cannot hammer the issuer.
 */
export function createJwtVerifier(
  options: JwtVerifierOptions,
  { prefetchKeys = false }: { readonly prefetchKeys?: boolean } = {},
): TokenVerifier {
  const keys = createRemoteKeySet(options.jwksUrl, {
    timeoutMs: 3000,
    cooldownMs: 30_000,
    cacheMaxAgeMs: 600_000,
    prefetch: prefetchKeys,
  });
  return (token) => verifyJwt(token, keys, options);
}

export async function verifyJwt(
  token: string,
  keys: JWTVerifyGetKey,
  options: Pick<JwtVerifierOptions, 'issuer' | 'audiences'>,
): Promise<VerifiedToken> {
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(token, keys, {
      issuer: options.issuer,
      algorithms: allowedAlgorithms,
      clockTolerance: clockToleranceSeconds,
      requiredClaims: ['exp'],
    }));
  } catch (error) {
    throw verificationFailure(error);
  }
  const clientId = typeof payload.client_id === 'string' ? payload.client_id : undefined;
  if (payload.token_use !== undefined && payload.token_use !== 'access') {
    throw new UnauthorizedError('not_access_token', 'Token is not an access token');
  }
  if (options.audiences.length > 0 && !acceptsAudience(payload.aud, clientId, options.audiences)) {
    throw new UnauthorizedError('audience', 'Token audience is not accepted');
  }
  return { subject: payload.sub, clientId, scopes: grantedScopes(payload) };
}

/**
 * RFC 9068's space-separated `scope` (Cognito, Auth0), or Okta's `scp` array. Entra ID puts an
 * app's permissions in `roles`, which is not a scope and is not read.
 */
function grantedScopes(payload: JWTPayload): string[] {
  if (typeof payload.scope === 'string') return payload.scope.split(' ').filter(Boolean);
  if (Array.isArray(payload.scp)) return payload.scp.filter((scope) => typeof scope === 'string');
  return [];
}

function acceptsAudience(
  aud: string | string[] | undefined,
  clientId: string | undefined,
  audiences: readonly string[],
): boolean {
  const offered = [...(Array.isArray(aud) ? aud : aud === undefined ? [] : [aud])];
  if (clientId !== undefined) offered.push(clientId);
  return offered.some((value) => audiences.includes(value));
}

/** Why a token failed, in words a client can act on; an unreachable issuer is not the client's fault. */
function verificationFailure(error: unknown): HttpError {
  if (error instanceof errors.JWTExpired) {
    return new UnauthorizedError('expired', 'Token has expired', error);
  }
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'nbf')
      return new UnauthorizedError('not_yet_valid', 'Token is not yet valid', error);
    if (error.claim === 'iss')
      return new UnauthorizedError('issuer', 'Token issuer is not trusted', error);
    return new UnauthorizedError('invalid', `Token claim "${error.claim}" is invalid`, error);
  }
  if (error instanceof errors.JOSEAlgNotAllowed) {
    return new UnauthorizedError('algorithm', 'Token algorithm is not allowed', error);
  }
  if (error instanceof errors.JWKSNoMatchingKey) {
    return new UnauthorizedError('unknown_key', 'Token signing key is not known', error);
  }
  if (error instanceof errors.JWSSignatureVerificationFailed) {
    return new UnauthorizedError('signature', 'Token signature is invalid', error);
  }
  if (issuerFailed(error)) {
    return new HttpError(503, 'Token issuer is unavailable, retry later', {
      headers: { 'retry-after': '5' },
      cause: error,
    });
  }
  return new UnauthorizedError('invalid', 'Token is malformed or invalid', error);
}

/** The JWKS could not be fetched or read: a timeout, a network error, a non-200 or a bad document. */
function issuerFailed(error: unknown): boolean {
  return (
    !(error instanceof errors.JOSEError) ||
    error instanceof errors.JWKSTimeout ||
    error instanceof errors.JWKSInvalid ||
    error.code === errors.JOSEError.code
  );
}
