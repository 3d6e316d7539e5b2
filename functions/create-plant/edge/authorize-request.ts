import { authorize } from '../auth/authorize.ts';
import type { TokenVerifier } from '../auth/token-verifier.ts';
import type { PlantMiddleware } from './request-context.ts';

/** First step after the edge: no valid token, no look at the body, whatever it holds. */
export function authorizeRequest(verify: TokenVerifier, requiredScope: string): PlantMiddleware {
  return {
    name: 'authorizeRequest',
    before: async ({ event, context }) => {
      context.caller = await authorize(event.headers ?? {}, verify, requiredScope);
    },
  };
}
