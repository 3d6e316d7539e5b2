import { errorChain, type Logger, sourceMappedStack } from '../log.ts';
import { HttpError } from './http-error.ts';
import type { HttpMiddleware } from './request-context.ts';
import { statusOutcome } from './request-metrics.ts';
import { errorResponse } from './respond.ts';

export type ErrorAnswer = {
  readonly type: abstract new (...args: never[]) => Error;
  readonly status: number;
  /** When the error's own message is not for the client. */
  readonly message?: string;
  readonly retryAfterSeconds?: number;
  /** When its status alone does not tell (`statusOutcome`). */
  readonly outcome?: string;
};

/** Every error's answer, in this one place; anything unknown is logged and a fixed 500. */
export function mapErrors(
  log: Logger,
  answers: readonly ErrorAnswer[],
): HttpMiddleware<{ outcome: string }> {
  return {
    name: 'mapErrors',
    onError: (request) => {
      if (request.response !== undefined) return;
      const { error, context } = request;
      const known = clientAnswer(error, answers);
      context.outcome = known?.outcome ?? statusOutcome(known?.answer.statusCode ?? 500);
      if (known === undefined) {
        log('error', 'unexpected error', {
          requestId: context.awsRequestId,
          error: errorChain(error),
          stack: error instanceof Error ? sourceMappedStack(error) : undefined,
        });
        request.response = errorResponse(500, 'Internal server error');
        return;
      }
      const { answer } = known;
      request.response = errorResponse(answer.statusCode, answer.message, answer.headers);
      if (answer.statusCode >= 500) {
        log('warn', 'dependency unavailable', {
          requestId: context.awsRequestId,
          status: answer.statusCode,
          error: errorChain(error),
        });
      }
    },
  };
}

function clientAnswer(
  error: unknown,
  answers: readonly ErrorAnswer[],
): { answer: HttpError; outcome?: string | undefined } | undefined {
  if (error instanceof HttpError) return { answer: error };
  for (const { type, status, message, retryAfterSeconds, outcome } of answers) {
    if (!(error instanceof type)) continue;
    const headers: Record<string, string> =
      retryAfterSeconds === undefined ? {} : { 'retry-after': String(retryAfterSeconds) };
    const answer = new HttpError(status, message ?? error.message, { cause: error, headers });
    return { answer, outcome };
  }
  return undefined;
}
