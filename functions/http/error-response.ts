import type { Logger } from '../log.ts';
import { HttpError } from './http-error.ts';
import type { PlantMiddleware } from './request-context.ts';
import { errorResponse } from './respond.ts';

/** How a domain error is answered: a row of the error table `mapErrors` is given. */
export type ErrorAnswer = {
  readonly type: abstract new (...args: never[]) => Error;
  readonly status: number;
  /** What the client is told, when the error's own message is not for the client. */
  readonly message?: string;
  /** For a dependency that is unavailable: how long a client waits before it retries. */
  readonly retryAfterSeconds?: number;
};

/**
 * Every error -> `{error, message}`, in this one place: an `HttpError` as it says, a domain error
 * through the row of `answers` that names its type. Either says what the client can do; anything
 * else is logged with the request id and answered with a fixed 500.
 */
export function mapErrors(log: Logger, answers: readonly ErrorAnswer[]): PlantMiddleware {
  return {
    name: 'mapErrors',
    onError: (request) => {
      if (request.response !== undefined) return;
      const { error, context } = request;
      const answer = error instanceof HttpError ? error : translate(error, answers);
      if (answer === undefined) {
        log('error', 'unexpected error', {
          requestId: context.awsRequestId,
          error: chain(error),
          stack: error instanceof Error ? error.stack : undefined,
        });
        request.response = errorResponse(500, 'Internal server error');
        return;
      }
      request.response = errorResponse(answer.statusCode, answer.message, answer.headers);
      if (answer.statusCode >= 500) {
        log('warn', 'dependency unavailable', {
          requestId: context.awsRequestId,
          status: answer.statusCode,
          error: chain(error),
        });
      }
    },
  };
}

/** The domain error as the client is told it, or undefined for an error no row names. */
function translate(error: unknown, answers: readonly ErrorAnswer[]): HttpError | undefined {
  for (const { type, status, message, retryAfterSeconds } of answers) {
    if (!(error instanceof type)) continue;
    const headers: Record<string, string> =
      retryAfterSeconds === undefined ? {} : { 'retry-after': String(retryAfterSeconds) };
    return new HttpError(status, message ?? error.message, { cause: error, headers });
  }
  return undefined;
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
