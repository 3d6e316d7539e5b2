import { HttpError } from '../errors.ts';

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

/** No credentials, a malformed header or a token that fails verification. */
export class UnauthorizedError extends HttpError {
  constructor(
    message: string,
    code?: Exclude<BearerErrorCode, 'insufficient_scope'>,
    cause?: unknown,
  ) {
    super(401, message, {
      headers: { 'www-authenticate': bearerChallenge(code, code && message) },
      cause,
    });
    this.name = 'UnauthorizedError';
  }
}

/** A valid token that lacks the scope this operation needs. */
export class ForbiddenError extends HttpError {
  constructor(message: string, scope: string) {
    super(403, message, {
      headers: { 'www-authenticate': bearerChallenge('insufficient_scope', message, scope) },
    });
    this.name = 'ForbiddenError';
  }
}
