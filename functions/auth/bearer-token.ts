import { UnauthorizedError } from './auth-errors.ts';

/** Tokens far larger than any real issuer mints are refused before any parsing or crypto. */
const maxTokenLength = 8 * 1024;

/** RFC 7235 credentials: the scheme word in any case, one or more spaces, one token68. */
const bearerCredentials = /^bearer +([A-Za-z0-9\-._~+/]+=*)$/i;

/**
 * Authorization header -> the bearer token. Only the header counts: a token in the query
 * string or a cookie is ignored (RFC 6750 discourages both).
 */
export function readBearerToken(headers: Readonly<Record<string, string | undefined>>): string {
  const header = headers.authorization?.trim();
  if (!header)
    throw new UnauthorizedError('missing', 'Missing bearer token in the Authorization header');
  if (header.length > maxTokenLength + 16) {
    throw new UnauthorizedError('oversized', 'Bearer token is too large');
  }
  const token = bearerCredentials.exec(header)?.[1];
  if (!token) {
    throw new UnauthorizedError('malformed', 'Authorization header must be "Bearer <token>"');
  }
  return token;
}
