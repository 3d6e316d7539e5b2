import { describe, expect, it } from 'vitest';
import { ForbiddenError, UnauthorizedError } from '../../../functions/auth/auth-errors.ts';
import { authorizeRequest } from '../../../functions/auth/authorize-request.ts';
import type { TokenVerifier, VerifiedToken } from '../../../functions/auth/token-verifier.ts';
import { fakeEvent } from '../../support/fake-event.ts';
import { middlewareRequest } from '../../support/middleware-request.ts';

const caller = (scopes: string[]): VerifiedToken => ({
  subject: 'client-1',
  clientId: 'client-1',
  scopes,
});

/** A verifier that grants `scopes` to the token "good" and refuses anything else, recording what it saw. */
function verifierGranting(scopes: string[]) {
  const seen: string[] = [];
  const verify: TokenVerifier = async (token) => {
    seen.push(token);
    if (token !== 'good') throw new UnauthorizedError('signature', 'Token signature is invalid');
    return caller(scopes);
  };
  return { verify, seen };
}

describe('authorizeRequest', () => {
  it('hands the verified caller on when the token carries the scope', async () => {
    const { verify, seen } = verifierGranting(['plants/read', 'plants/write']);
    const request = middlewareRequest(fakeEvent({ token: 'good' }));

    await authorizeRequest(verify, 'plants/write').before?.(request);

    expect(seen).toStrictEqual(['good']);
    expect(request.context.caller).toStrictEqual(caller(['plants/read', 'plants/write']));
  });

  it('refuses a verified token without the scope with 403 and the scope in the challenge', async () => {
    const { verify } = verifierGranting(['plants/read']);
    const request = middlewareRequest(fakeEvent({ token: 'good' }));

    const refusal = await Promise.resolve(
      authorizeRequest(verify, 'plants/write').before?.(request),
    ).catch((error: unknown) => error);

    expect(refusal).toBeInstanceOf(ForbiddenError);
    expect(refusal).toMatchObject({
      statusCode: 403,
      message: 'Token lacks the scope "plants/write"',
      challenge:
        'Bearer realm="plant-store", error="insufficient_scope", error_description="Token lacks the scope \'plants/write\'", scope="plants/write"',
    });
    expect(request.context.caller).toBeUndefined();
  });

  it.each([
    ['the verifier refuses the token', fakeEvent({ token: 'forged' }), 'signature'],
    [
      'there is no Authorization header',
      fakeEvent({ headers: { authorization: undefined } }),
      'missing',
    ],
  ])('lets the 401 through when %s, before the body is read', async (_case, event, reason) => {
    const { verify } = verifierGranting(['plants/write']);
    const request = middlewareRequest({ ...event, body: '{not json' });

    const refusal = await Promise.resolve(
      authorizeRequest(verify, 'plants/write').before?.(request),
    ).catch((error: unknown) => error);

    expect(refusal).toBeInstanceOf(UnauthorizedError);
    expect(refusal).toMatchObject({ statusCode: 401, reason });
    expect(request.context.caller).toBeUndefined();
  });
});
