import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
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
