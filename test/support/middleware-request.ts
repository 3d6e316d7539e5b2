import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { PlantMiddleware } from '../../functions/http/request-context.ts';
import { fakeContext, fakeEvent } from './fake-event.ts';

/** The request Middy hands a middleware: what `before`, `after` and `onError` read and set. */
export type PlantRequest = Parameters<NonNullable<PlantMiddleware['before']>>[0];

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
