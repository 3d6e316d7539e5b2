import { HttpError } from '../http/http-error.ts';

/** RFC 6750 section 3: every 401 and 403 names the Bearer scheme and, when a token was sent, why it failed. */
const realm = 'plant-store';

export type BearerErrorCode = 'invalid_request' | 'invalid_token' | 'insufficient_scope';

export function bearerChallenge(
  code?: BearerErrorCode,
  description?: string,
  scope?: string,
): string {
  const params = [`realm="${realm}"`];
  if (code) params.push(`error="${code}"`);
  if (description) params.push(`error_description="${description.replaceAll('"', "'")}"`);
  if (scope) params.push(`scope="${scope}"`);
  return `Bearer ${params.join(', ')}`;
}

/** A metric dimension and a log field. */
export type AuthFailureReason =
  | 'missing'
  | 'malformed'
  | 'oversized'
  | 'expired'
  | 'not_yet_valid'
  | 'issued_in_future'
  | 'too_long_lived'
  | 'issuer'
  | 'audience'
  | 'not_access_token'
  | 'algorithm'
  | 'unknown_key'
  | 'unusable_key'
  | 'signature'
  | 'invalid'
  | 'insufficient_scope';

export class AuthError extends HttpError {
  readonly reason: AuthFailureReason;
  readonly challenge: string;

  constructor(
    status: 401 | 403,
    reason: AuthFailureReason,
    message: string,
    challenge: string,
    cause?: unknown,
  ) {
    super(status, message, { cause, headers: { 'www-authenticate': challenge } });
    this.name = 'AuthError';
    this.reason = reason;
    this.challenge = challenge;
  }
}

export class UnauthorizedError extends AuthError {
  constructor(
    reason: Exclude<AuthFailureReason, 'insufficient_scope'>,
    message: string,
    cause?: unknown,
  ) {
    // RFC 6750 3.1: no error code when the request carried no credentials at all.
    const code =
      reason === 'missing'
        ? undefined
        : reason === 'malformed'
          ? 'invalid_request'
          : 'invalid_token';
    super(401, reason, message, bearerChallenge(code, code && message), cause);
    this.name = 'UnauthorizedError';
  }
}

export class ForbiddenError extends AuthError {
  constructor(message: string, scope: string) {
    super(
      403,
      'insufficient_scope',
      message,
      bearerChallenge('insufficient_scope', message, scope),
    );
    this.name = 'ForbiddenError';
  }
}

/** Between fetches of a failing key set, so the 503's `Retry-After`: by then one has tried again. */
export const issuerRetrySeconds = 5;

/** Not the client's fault, and worth a retry. */

export class IssuerUnavailableError extends Error {
  constructor(cause: unknown) {
    super('The token issuer is unavailable', { cause });
    this.name = 'IssuerUnavailableError';
  }
}
