import { AuthError, IssuerUnavailableError } from '../auth/auth-errors.ts';
import type { Logger } from '../log.ts';
import { InvalidPlantError } from '../plants/new-plant.ts';
import { PlantConflictError, StoreUnavailableError } from '../plants/plant-store.ts';
import { HttpError } from './errors.ts';
import type { PlantMiddleware } from './request-context.ts';
import { errorResponse } from './respond.ts';

type ClientAnswer = { status: number; message: string; headers?: Readonly<Record<string, string>> };

type DomainAnswer = {
  readonly type: new (...args: never[]) => Error;
  readonly status: number;
  /** What the client is told, when the error's own message is not for the client. */
  readonly message?: string;
  readonly retryAfterSeconds?: number;
};

/**
 * The domain errors the client is told about, with their status and, for a dependency that is
 * unavailable, how many seconds to wait before retrying: a write the store could not take is
 * worth retrying soon; an issuer that could not be reached is given longer to recover.
 */
const domainAnswers: readonly DomainAnswer[] = [
  { type: InvalidPlantError, status: 400 },
  { type: PlantConflictError, status: 409 },
  {
    type: StoreUnavailableError,
    status: 503,
    message: 'The plant store is busy or unavailable, retry later',
    retryAfterSeconds: 1,
  },
  {
    type: IssuerUnavailableError,
    status: 503,
    message: 'Token issuer is unavailable, retry later',
    retryAfterSeconds: 5,
  },
];

/** Middy's JSON body parser names itself in the `cause` of the errors it throws. */
const bodyParserPackage = '@middy/http-json-body-parser';

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
      const known = clientAnswer(error);
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

/** What the client is told about an error we expect, or undefined for one we do not. */
function clientAnswer(error: unknown): ClientAnswer | undefined {
  const answer = domainAnswers.find(({ type }) => error instanceof type);
  if (answer && error instanceof Error) {
    const { status, message = error.message, retryAfterSeconds } = answer;
    const headers: Record<string, string> =
      retryAfterSeconds === undefined ? {} : { 'retry-after': String(retryAfterSeconds) };
    return { status, message, headers };
  }
  if (!(error instanceof HttpError) || !error.expose) return undefined;
  if (error instanceof AuthError) {
    return {
      status: error.statusCode,
      message: error.message,
      headers: { 'www-authenticate': error.challenge },
    };
  }
  return bodyParserAnswer(error) ?? { status: error.statusCode, message: error.message };
}

/**
 * @middy/http-json-body-parser answers 422 both for malformed JSON and for a `__proto__` or
 * `constructor.prototype` key; the contract calls both a bad request. Its `cause` tells them
 * apart: a parse failure carries the parser's `message`; a forbidden key has none, and `data` is the key.
 */
function bodyParserAnswer(error: HttpError): ClientAnswer | undefined {
  const cause = error.cause as { package?: unknown; data?: unknown; message?: unknown } | undefined;
  if (error.statusCode !== 422 || cause?.package !== bodyParserPackage) return undefined;
  return cause.message === undefined && typeof cause.data === 'string'
    ? { status: 400, message: `Request body must not contain the key "${cause.data}"` }
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
