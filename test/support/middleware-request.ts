import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { Caller } from '../../functions/auth/authorize-request.ts';
import type { AccessLogFields } from '../../functions/http/access-log.ts';
import type { HttpMiddleware } from '../../functions/http/request-context.ts';
import type { JsonBodyFields } from '../../functions/http/require-json-body.ts';
import { fakeContext, fakeEvent } from './fake-event.ts';

/**
 * The request Middy hands a middleware: what `before`, `after` and `onError` read and set, with
 * every field a step of the request path puts on the context.
 */
export type PlantRequest = Parameters<
  NonNullable<HttpMiddleware<AccessLogFields & JsonBodyFields & { caller: Caller }>['before']>
>[0];

/** A request as Middy builds it for one invocation, around the real payload 2.0 event. */
export function middlewareRequest(
  event: APIGatewayProxyEventV2 = fakeEvent(),
  overrides: Partial<Pick<PlantRequest, 'response' | 'error'>> = {},
): PlantRequest {
  return {
    event,
    context: fakeContext(),
    response: undefined,
    error: undefined,
    internal: {},
    ...overrides,
  } as PlantRequest;
}
