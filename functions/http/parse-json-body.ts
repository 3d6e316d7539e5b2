import httpJsonBodyParser from '@middy/http-json-body-parser';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { HttpError } from './http-error.ts';
import type { HttpMiddleware } from './request-context.ts';

/** The package @middy/http-json-body-parser names in the `cause` of each refusal. */
export const bodyParserPackage = '@middy/http-json-body-parser';

/**
 * The body text -> its JSON value, by Middy's JSON body parser, with its refusals in the
 * contract's words. `requireJsonBody` decides the media type, so the parser's own check is off:
 * two checks could disagree about a type one of them accepts.
 */
export function parseJsonBody(): HttpMiddleware {
  const parser = httpJsonBodyParser<APIGatewayProxyEventV2>({ disableContentTypeCheck: true });
  return {
    name: 'parseJsonBody',
    before: async (request) => {
      try {
        await parser.before?.(request);
      } catch (error) {
        throw bodyParserRefusal(error) ?? error;
      }
    },
  };
}

/**
 * The parser answers 422 both for malformed JSON and for a `__proto__` or `constructor.prototype`
 * key; the contract calls both a bad request (400). The refusal's `cause` names the package and
 * tells the two apart: a forbidden key's carries the key as `data` and no parse `message`. The
 * package does not document that shape, so `parse-json-body.test.ts` pins it against the installed
 * version; anything else the parser throws is not translated.
 */
export function bodyParserRefusal(error: unknown): HttpError | undefined {
  const cause = error instanceof Error ? error.cause : undefined;
  if (typeof cause !== 'object' || cause === null) return undefined;
  if (!('package' in cause) || cause.package !== bodyParserPackage) return undefined;
  const forbiddenKey =
    !('message' in cause) && 'data' in cause && typeof cause.data === 'string'
      ? cause.data
      : undefined;
  return forbiddenKey === undefined
    ? new HttpError(400, 'Request body is not valid JSON', { cause: error })
    : new HttpError(400, `Request body must not contain the key "${forbiddenKey}"`, {
        cause: error,
      });
}
