import { type Operation, requestPath } from '../functions/operation.ts';

/** An HTTP request as `fetch` sends it: the path with its query, lowercase header names. */
export interface SampleHttpRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
}

/**
 * The operation's sample request about the plant `id` (its declaration's `sample`), as sent over
 * HTTP: its route's path filled in, a JSON body's content type, and the token when there is one.
 * What `npm run smoke` and `npm run contract` send every operation in the list, so that a new one
 * is tried by both without a line of its own here.
 */
export function sampleHttpRequest(
  operation: Operation,
  id: string,
  token?: string,
): SampleHttpRequest {
  const request = operation.sample.request(id);
  return {
    method: operation.method,
    path: requestPath(operation, request),
    headers: {
      ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...request.headers,
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    },
    ...(request.body === undefined ? {} : { body: request.body }),
  };
}
