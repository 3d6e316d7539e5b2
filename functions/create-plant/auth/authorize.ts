import { readBearerToken } from './bearer-token.ts';
import { ForbiddenError } from './challenge.ts';
import type { TokenVerifier, VerifiedToken } from './token-verifier.ts';

export type Caller = VerifiedToken;

/** Request headers -> the caller allowed to create plants, or a 401/403 naming the reason. */
export async function authorize(
  headers: Readonly<Record<string, string | undefined>>,
  verify: TokenVerifier,
  requiredScope: string,
): Promise<Caller> {
  const caller = await verify(readBearerToken(headers));
  if (!caller.scopes.includes(requiredScope)) {
    throw new ForbiddenError(`Token lacks the scope "${requiredScope}"`, requiredScope);
  }
  return caller;
}
