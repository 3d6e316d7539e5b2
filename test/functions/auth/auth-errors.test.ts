import { describe, expect, it } from 'vitest';
import {
  type AuthFailureReason,
  bearerChallenge,
  ForbiddenError,
  UnauthorizedError,
} from '../../../functions/auth/auth-errors.ts';
import { HttpError } from '../../../functions/http/http-error.ts';

describe('UnauthorizedError', () => {
  it.each<[Exclude<AuthFailureReason, 'insufficient_scope'>, string]>([
    ['missing', 'Bearer realm="plant-store"'],
    ['malformed', 'Bearer realm="plant-store", error="invalid_request", error_description="Why"'],
    ['oversized', 'Bearer realm="plant-store", error="invalid_token", error_description="Why"'],
    ['expired', 'Bearer realm="plant-store", error="invalid_token", error_description="Why"'],
    ['signature', 'Bearer realm="plant-store", error="invalid_token", error_description="Why"'],
  ])('challenges a %s credential as RFC 6750 section 3.1 says: %s', (reason, challenge) => {
    const error = new UnauthorizedError(reason, 'Why');

    expect(error).toBeInstanceOf(HttpError);
    expect(error).toMatchObject({
      statusCode: 401,
      reason,
      message: 'Why',
      challenge,
      headers: { 'www-authenticate': challenge },
    });
  });
});

describe('ForbiddenError', () => {
  it('answers 403 insufficient_scope and names the scope needed', () => {
    const error = new ForbiddenError('Needs the scope', 'plants/write');

    const challenge =
      'Bearer realm="plant-store", error="insufficient_scope", error_description="Needs the scope", scope="plants/write"';
    expect(error).toBeInstanceOf(HttpError);
    expect(error).toMatchObject({
      statusCode: 403,
      reason: 'insufficient_scope',
      challenge,
      headers: { 'www-authenticate': challenge },
    });
  });
});

describe('bearerChallenge', () => {
  it('turns a double quote in the description into a single one, so the header stays well formed', () => {
    expect(bearerChallenge('invalid_token', 'Token claim "nbf" is invalid')).toBe(
      `Bearer realm="plant-store", error="invalid_token", error_description="Token claim 'nbf' is invalid"`,
    );
  });
});
