import type { MiddlewareObj } from '@middy/core';
import type {
  APIGatewayProxyEventV2,
  APIGatewayProxyStructuredResultV2,
  Context,
} from 'aws-lambda';
import type { Caller } from '../auth/authorize-request.ts';
import type { CreateOutcome } from '../plants/plant-store.ts';

/**
 * What the edge middlewares learn about a request and hand on, in the order they run. Optional
 * because Lambda hands the handler a plain Context; each is set before any later step reads it.
 */
export type PlantRequestContext = Context & {
  /** Set by `authorizeRequest`. */
  caller?: Caller;
  /** Set by `requireJsonBody`: the body text exactly as sent, for the exact int64 id. */
  rawBody?: string;
  /** Set by the handler once the store has answered. */
  outcome?: CreateOutcome;
  /** Set by the handler: how long the store took, retries included. */
  storeLatencyMs?: number;
};

export type PlantMiddleware = MiddlewareObj<
  APIGatewayProxyEventV2,
  APIGatewayProxyStructuredResultV2,
  Error,
  PlantRequestContext
>;
