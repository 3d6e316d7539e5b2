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

/** What every operation's handler is built from; `Store` is the part of the port it calls. */
export type OperationDependencies<Store> = {
  readonly store: Store;
  readonly verifyToken: TokenVerifier;
  readonly requiredScope: string;
  /** The `Service` dimension of the request metrics. @default 'plant-store' */
  readonly service?: string;
  /** @default jsonLogger */
  readonly log?: Logger;
};

/** The counters an operation's requests add to: its own outcomes beside the shared failures. */
export function countersOf<Own extends Operation['outcomes']>(operation: {
  readonly outcomes: Own;
}): typeof failureCounters & Own {
  return { ...failureCounters, ...operation.outcomes };
}

/**
 * The steps every operation starts with, in order: the edge (the request's log line, counted under
 * the operation's outcomes, every error mapped once, and an event API Gateway would never send
 * refused), then the caller, authorized with the operation's scope before anything reads the
 * request, then the precondition header the operation evaluates read, and any other refused. The
 * operation adds its own steps after.
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
