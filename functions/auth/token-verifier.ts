import type { Agent } from 'node:http';
import { errors, type JWTPayload, type JWTVerifyGetKey, jwtVerify } from 'jose';
import { IssuerUnavailableError, UnauthorizedError } from './auth-errors.ts';
import { isCanonicalCompactJws } from './compact-jws.ts';
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
  /**
   * Accepted audiences: a token's `aud`, when present, must name one; only a token without `aud`
   * (Cognito's access tokens) is matched by its `client_id`. Empty accepts none.
   */
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
 * The longest a token may live (`exp - iat`, or `exp - now` without `iat`). Cognito's access
 * tokens live at most a day, Auth0's default is 24 h and Okta's 1 h: a longer-lived token is a
 * misconfigured issuer or a forged `exp` (1e300) that would never expire if leaked.
 */
export const maxTokenLifetimeSeconds = 24 * 3600;

/**
 * A verifier backed by the issuer's JWKS. The key set is fetched once, cached for ten minutes,
 * and refetched early only for an unknown `kid`, at most every 30 s, so rotation works without a
 * restart while a flood of made-up key ids cannot hammer the issuer.
 */
export function createJwtVerifier(
  options: JwtVerifierOptions,
  { prefetchKeys = false, agent }: { readonly prefetchKeys?: boolean; readonly agent?: Agent } = {},
): TokenVerifier {
  const keys = createRemoteKeySet(options.jwksUrl, {
    timeoutMs: 3000,
    cooldownMs: 30_000,
    cacheMaxAgeMs: 600_000,
    prefetch: prefetchKeys,
    agent,
  });
  return (token) => verifyJwt(token, keys, options);
}

export async function verifyJwt(
  token: string,
  keys: JWTVerifyGetKey,
  options: Pick<JwtVerifierOptions, 'issuer' | 'audiences'>,
): Promise<VerifiedToken> {
  if (!isCanonicalCompactJws(token)) throw malformedToken();
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
  checkClaims(payload, Math.floor(Date.now() / 1000), options);
  const clientId = typeof payload.client_id === 'string' ? payload.client_id : undefined;
  return { subject: payload.sub, clientId, scopes: grantedScopes(payload) };
}

/**
 * This API's own rules on a signature-checked payload whose `iss`, `exp` and `nbf` the JWT
 * library has already checked: kept apart from the library so that they hold whichever one
 * verifies the signature. `now` is in seconds since the epoch.
 */
export function checkClaims(
  payload: JWTPayload,
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

/**
 * RFC 9068's space-separated `scope` (Cognito, Auth0), or Okta's `scp` array. Entra ID puts an
 * app's permissions in `roles`, which is not a scope and is not read.
 */
function grantedScopes(payload: JWTPayload): string[] {
  if (typeof payload.scope === 'string') return payload.scope.split(' ').filter(Boolean);
  if (Array.isArray(payload.scp)) return payload.scp.filter((scope) => typeof scope === 'string');
  return [];
}

/**
 * RFC 7519 4.1.3 and RFC 9068 4: a present `aud` decides, so a token minted for another API is
 * refused even when its `client_id` (which Keycloak, Hydra and Okta put in every token) is ours.
 */
function acceptsAudience(payload: JWTPayload, audiences: readonly string[]): boolean {
  const { aud, client_id: clientId } = payload;
  if (aud === undefined) return typeof clientId === 'string' && audiences.includes(clientId);
  return (Array.isArray(aud) ? aud : [aud]).some((value) => audiences.includes(value));
}

/** Why a token failed, in words a client can act on; an unreachable issuer is not the client's fault. */
function verificationFailure(error: unknown): UnauthorizedError | IssuerUnavailableError {
  if (error instanceof errors.JWTExpired) {
    return new UnauthorizedError('expired', 'Token has expired', error);
  }
  if (error instanceof errors.JWTClaimValidationFailed) {
    // A `nbf` of the wrong type is `reason: 'invalid'`: malformed, not early.
    if (error.claim === 'nbf' && error.reason === 'check_failed')
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
  if (issuerFailed(error)) return new IssuerUnavailableError(error);
  return malformedToken(error);
}

const malformedToken = (cause?: unknown) =>
  new UnauthorizedError('invalid', 'Token is malformed or invalid', cause);

/** The JWKS could not be fetched or read: a timeout, a network error, a non-200 or a bad document. */
function issuerFailed(error: unknown): boolean {
  return (
    !(error instanceof errors.JOSEError) ||
    error instanceof errors.JWKSTimeout ||
    error instanceof errors.JWKSInvalid ||
    error.code === errors.JOSEError.code
  );
}
