import httpJsonBodyParser from '@middy/http-json-body-parser';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { HttpError } from './http-error.ts';
import type { HttpMiddleware } from './request-context.ts';

/** The package @middy/http-json-body-parser names in the `cause` of each refusal. */
export const bodyParserPackage = '@middy/http-json-body-parser';

/** The parser's media type check is off: `requireJsonBody`'s alone decides, so none disagree. */
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
 * The parser's 422s (malformed JSON, a `__proto__` key) are the contract's 400s. Its `cause`'s
 * shape is undocumented, so `parse-json-body.test.ts` pins it against the installed version.
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
