import type { HttpMiddleware } from '../http/request-context.ts';
import { ForbiddenError } from './auth-errors.ts';
import { readBearerToken } from './bearer-token.ts';
import type { TokenVerifier, VerifiedToken } from './token-verifier.ts';

export type Caller = VerifiedToken;

/**
 * First step after the edge: the verified caller, holding the scope the operation needs, or a
 * 401/403 naming the reason, before anything looks at the body, whatever it holds.
 */
export function authorizeRequest(
  verify: TokenVerifier,
  requiredScope: string,
): HttpMiddleware<{ caller: Caller }> {
  return {
    name: 'authorizeRequest',
    before: async ({ event, context }) => {
      const caller = await verify(readBearerToken(event.headers ?? {}));
      if (!caller.scopes.includes(requiredScope)) {
        throw new ForbiddenError(`Token lacks the scope "${requiredScope}"`, requiredScope);
      }
      context.caller = caller;
    },
  };
}
