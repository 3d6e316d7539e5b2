import type { MiddlewareObj } from '@middy/core';
import type {
  APIGatewayProxyEventV2,
  APIGatewayProxyStructuredResultV2,
  Context,
} from 'aws-lambda';

/**
 * A step of the request path over API Gateway's payload 2.0 events. `Fields` are what the step
 * sets on the Lambda context for a later step, or reads from it: Middy's `use` adds each step's
 * fields to the context the handler sees, so an operation's context holds the fields of the steps
 * it uses and no others. Optional, because Lambda hands the handler a plain Context; each is set
 * before any later step reads it.
 */
export type HttpMiddleware<Fields extends object = object> = MiddlewareObj<
  APIGatewayProxyEventV2,
  APIGatewayProxyStructuredResultV2,
  Error,
  Context & Partial<Fields>
>;
