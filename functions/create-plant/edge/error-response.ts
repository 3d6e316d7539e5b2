import { HttpError } from '../errors.ts';
import type { Logger } from '../log.ts';
import { errorResponse } from '../respond.ts';
import { PlantConflictError, StoreUnavailableError } from '../store/plant-store.ts';
import type { PlantMiddleware } from './request-context.ts';

/** Seconds a client should wait before retrying a write the store could not take. */
const storeRetryAfterSeconds = '1';

/**
 * Every error -> `{error, message}`, in this one place. Errors we threw on purpose say what the
 * client can do; anything else is logged with the request id and answered with a fixed 500.
 */
export function mapErrors(log: Logger): PlantMiddleware {
  return {
    name: 'mapErrors',
    onError: (request) => {
      if (request.response !== undefined) return;
      const { error, context } = request;
      const known = describe(error);
      if (known) {
        request.response = errorResponse(known.status, known.message, known.headers);
        if (known.status >= 500) {
          log('warn', 'dependency unavailable', {
            requestId: context.awsRequestId,
            status: known.status,
            error: chain(error),
          });
        }
        return;
      }
      log('error', 'unexpected error', {
        requestId: context.awsRequestId,
        error: chain(error),
        stack: error instanceof Error ? error.stack : undefined,
      });
      request.response = errorResponse(500, 'Internal server error');
    },
  };
}

type Described = { status: number; message: string; headers?: Readonly<Record<string, string>> };

function describe(error: unknown): Described | undefined {
  if (error instanceof HttpError) {
    return { status: error.status, message: error.message, headers: error.headers };
  }
  if (error instanceof PlantConflictError) return { status: 409, message: error.message };
  if (error instanceof StoreUnavailableError) {
    return {
      status: 503,
      message: 'The plant store is busy or unavailable, retry later',
      headers: { 'retry-after': storeRetryAfterSeconds },
    };
  }
  return describeBodyParserError(error);
}

/**
 * @middy/http-json-body-parser answers 422 both for malformed JSON and for a `__proto__` or
 * `constructor.prototype` key; the contract calls both a bad request.
 */
function describeBodyParserError(error: unknown): Described | undefined {
  if (!(error instanceof Error) || !('statusCode' in error) || error.statusCode !== 422) {
    return undefined;
  }
  const cause = error.cause as { data?: unknown } | undefined;
  return error.message.startsWith('Forbidden key')
    ? { status: 400, message: `Request body must not contain the key "${String(cause?.data)}"` }
    : { status: 400, message: 'Request body is not valid JSON' };
}

/** Names and messages down the cause chain: enough to diagnose, never a request's data. */
function chain(error: unknown): string[] {
  const links: string[] = [];
  for (let link = error; link !== undefined && links.length < 5; ) {
    if (link instanceof Error) {
      links.push(`${link.name}: ${link.message}`);
      link = link.cause;
    } else {
      links.push(String(link));
      link = undefined;
    }
  }
  return links;
}
