import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { type Operation, requestPath, type SampleRequest } from '../../functions/operation.ts';
import fixture from './payload-v2-event.json' with { type: 'json' };

export type EventOverrides = {
  readonly body?: string | undefined;
  readonly token?: string | undefined;
  readonly headers?: Readonly<Record<string, string | undefined>>;
  readonly isBase64Encoded?: boolean;
};

/**
 * A real API Gateway HTTP API (payload 2.0) event for POST /plants, cloned and overridden.
 * `token` becomes the Authorization header; a header set to undefined is removed.
 */
export function fakeEvent(overrides: EventOverrides = {}): APIGatewayProxyEventV2 {
  const event = structuredClone(fixture) as APIGatewayProxyEventV2;
  const headers: Record<string, string | undefined> = { ...event.headers };
  if (overrides.token !== undefined) headers.authorization = `Bearer ${overrides.token}`;
  for (const [name, value] of Object.entries(overrides.headers ?? {})) headers[name] = value;
  event.headers = Object.fromEntries(
    Object.entries(headers).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
  if ('body' in overrides) {
    if (overrides.body === undefined) delete event.body;
    else event.body = overrides.body;
  }
  event.isBase64Encoded = overrides.isBase64Encoded ?? false;
  return event;
}

let invocation = 0;

/** The part of a Lambda context the handler reads; the rest fails loudly if touched. */
export function fakeContext(): Context {
  invocation += 1;
  return { awsRequestId: `test-request-${invocation}` } as Context;
}

export type BodilessEventOverrides = Omit<EventOverrides, 'body' | 'isBase64Encoded'>;

/**
 * The fixture as API Gateway sends a bodiless request of another route: no body and no
 * Content-Type or Content-Length, the route and method its own.
 */
function bodilessEvent(
  method: string,
  routePath: string,
  rawPath: string,
  overrides: BodilessEventOverrides,
): APIGatewayProxyEventV2 {
  const event = fakeEvent({
    ...overrides,
    body: undefined,
    headers: { 'content-type': undefined, 'content-length': undefined, ...overrides.headers },
  });
  const routeKey = `${method} ${routePath}`;
  event.routeKey = routeKey;
  event.rawPath = rawPath;
  event.requestContext.routeKey = routeKey;
  event.requestContext.http.method = method;
  event.requestContext.http.path = rawPath;
  return event;
}

/**
 * The event API Gateway hands an operation's function for `request`: its route, method, path
 * (the route's `{name}`s filled in, percent-encoded) and query as payload 2.0 gives them:
 * percent-decoded, a repeated parameter's values joined with commas, and no
 * `queryStringParameters` at all without a query. A request with a body carries it as JSON.
 */
export function fakeOperationEvent(
  operation: Pick<Operation, 'method' | 'path'>,
  request: SampleRequest,
  overrides: BodilessEventOverrides = {},
): APIGatewayProxyEventV2 {
  const query = request.query ?? '';
  const rawPath = requestPath(operation, { ...request, query: '' });
  const headers = { ...request.headers, ...overrides.headers };
  const event =
    request.body === undefined
      ? bodilessEvent(operation.method, operation.path, rawPath, { ...overrides, headers })
      : fakeEvent({
          ...overrides,
          body: request.body,
          headers: { 'content-length': String(Buffer.byteLength(request.body)), ...headers },
        });
  if (request.body !== undefined) {
    const routeKey = `${operation.method} ${operation.path}`;
    event.routeKey = routeKey;
    event.rawPath = rawPath;
    event.requestContext.routeKey = routeKey;
    event.requestContext.http.method = operation.method;
    event.requestContext.http.path = rawPath;
  }
  event.rawQueryString = query;
  const parameters = new Map<string, string>();
  for (const [name, value] of new URLSearchParams(query)) {
    const earlier = parameters.get(name);
    parameters.set(name, earlier === undefined ? value : `${earlier},${value}`);
  }
  if (query !== '') event.queryStringParameters = Object.fromEntries(parameters);
  if (request.pathParameters !== undefined) event.pathParameters = { ...request.pathParameters };
  return event;
}

/** GET /plants with `query` as its raw query string (`limit=5&cursor=...`). */
export function fakeListEvent(
  query = '',
  overrides: BodilessEventOverrides = {},
): APIGatewayProxyEventV2 {
  return fakeOperationEvent({ method: 'GET', path: '/plants' }, { query }, overrides);
}

/** DELETE /plants/{id}, with `id` in `pathParameters` as API Gateway hands over the path's segment. */
export function fakeDeleteEvent(
  id: string,
  overrides: BodilessEventOverrides = {},
): APIGatewayProxyEventV2 {
  return fakeOperationEvent(
    { method: 'DELETE', path: '/plants/{id}' },
    { pathParameters: { id } },
    overrides,
  );
}
