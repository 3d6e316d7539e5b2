import { describe, expect, it } from 'vitest';
import { UnauthorizedError } from '../../../functions/auth/auth-errors.ts';
import { readBearerToken } from '../../../functions/auth/bearer-token.ts';

const token = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln-_~+/=';

/** The refusal of a header set: reason, message and the challenge the client is sent. */
function refusal(headers: Record<string, string | undefined>) {
  try {
    readBearerToken(headers);
  } catch (error) {
    if (error instanceof UnauthorizedError) {
      return { reason: error.reason, message: error.message, challenge: error.challenge };
    }
    throw error;
  }
  throw new Error('accepted');
}

const malformed = {
  reason: 'malformed',
  message: 'Authorization header must be "Bearer <token>"',
  challenge:
    'Bearer realm="plant-store", error="invalid_request", error_description="Authorization header must be \'Bearer <token>\'"',
};
const oversized = {
  reason: 'oversized',
  message: 'Bearer token is too large',
  challenge:
    'Bearer realm="plant-store", error="invalid_token", error_description="Bearer token is too large"',
};

describe('readBearerToken', () => {
  it.each([
    ['the usual form', `Bearer ${token}`],
    ['a lower-case scheme', `bearer ${token}`],
    ['an upper-case scheme', `BEARER ${token}`],
    ['a mixed-case scheme', `bEaReR ${token}`],
    ['several spaces after the scheme (RFC 7235: 1*SP)', `Bearer    ${token}`],
    ['spaces around the whole value', `  Bearer ${token}  `],
  ])('reads the token from %s', (_case, authorization) => {
    expect(readBearerToken({ authorization })).toBe(token);
  });

  it.each<[string, Record<string, string | undefined>]>([
    ['no Authorization header', {}],
    ['an empty header', { authorization: '' }],
    ['a header of spaces', { authorization: '   ' }],
  ])('refuses %s with a bare Bearer challenge', (_case, headers) => {
    expect(refusal(headers)).toStrictEqual({
      reason: 'missing',
      message: 'Missing bearer token in the Authorization header',
      challenge: 'Bearer realm="plant-store"',
    });
  });

  it.each([
    ['two tokens', `Bearer ${token} ${token}`],
    ['two Bearer credentials comma-joined', `Bearer ${token}, Bearer ${token}`],
    ['a tab after the scheme', `Bearer\t${token}`],
    ['no space after the scheme', `Bearer${token}`],
    ['the token without a scheme', token],
    ['the Basic scheme', 'Basic YWRtaW46YWRtaW4='],
    ['Bearer and nothing else', 'Bearer'],
    ['a quoted token', `Bearer "${token}"`],
    ['a token with a NUL byte', `Bearer ${token}\u0000`],
  ])('refuses %s as invalid_request', (_case, authorization) => {
    expect(refusal({ authorization })).toStrictEqual(malformed);
  });

  it.each([
    ['a 100 KB token', `Bearer ${'A'.repeat(100 * 1024)}`],
    ['a 100 KB header of junk', `Bearer ${'\u00ff '.repeat(50 * 1024)}`],
  ])('refuses %s before reading it', (_case, authorization) => {
    expect(refusal({ authorization })).toStrictEqual(oversized);
  });
});
