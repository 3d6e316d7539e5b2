import middy from '@middy/core';
import type {
  APIGatewayProxyEventV2,
  APIGatewayProxyStructuredResultV2,
  Context,
} from 'aws-lambda';
import { authorizeRequest } from './auth/authorize-request.ts';
import type { TokenVerifier } from './auth/token-verifier.ts';
import { errorAnswers, failureCounters } from './failures.ts';
import { accessLog } from './http/access-log.ts';
import { mapErrors } from './http/error-response.ts';
import { readPrecondition } from './http/preconditions.ts';
import { requireHttpEvent } from './http/require-http-event.ts';
import { jsonLogger, type Logger } from './log.ts';
import type { Operation } from './operation.ts';

/** `Store` is the part of the port the handler calls. */
export type OperationDependencies<Store> = {
  readonly store: Store;
  readonly verifyToken: TokenVerifier;
  readonly requiredScope: string;
  readonly service?: string;
  readonly log?: Logger;
};

export function countersOf<Own extends Operation['outcomes']>(operation: {
  readonly outcomes: Own;
}): typeof failureCounters & Own {
  return { ...failureCounters, ...operation.outcomes };
}

/**
 * The steps every operation starts with, and the one place Middy's order is written. Middy runs
 * each step's `before` in the order the steps are used, then the handler, then each step's
 * `after` in the reverse order; once anything throws, each step's `onError`, in the reverse order.
 * So these steps, used first, wrap everything an operation uses after them, then its handler:
 *
 * - `accessLog`: its `before` starts the request's clock; its `after` or `onError` comes last and
 *   writes the request's one log line, counted under the operation's outcomes, from the answer;
 * - `mapErrors`: its `onError` comes just before the log's, after every other, and turns an error
 *   of any step or of the handler into the answer, in one place;
 * - `requireHttpEvent`: refuses an event API Gateway would never send, before any step reads it;
 * - `authorizeRequest`: the caller, with the operation's scope, before anything reads the request;
 * - `readPrecondition`: the precondition header the operation evaluates, parsed; any other refused.
 */
export function authorizedEdge(
  operation: Pick<Operation, 'outcomes' | 'precondition'>,
  {
    verifyToken,
    requiredScope,
    service = 'plant-store',
    log = jsonLogger,
  }: Omit<OperationDependencies<unknown>, 'store'>,
) {
  return middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Error, Context>()
    .use(accessLog(log, service, countersOf(operation)))
    .use(mapErrors(log, errorAnswers))
    .use(requireHttpEvent())
    .use(authorizeRequest(verifyToken, requiredScope))
    .use(readPrecondition(operation.precondition));
}
