import { exactJson, parseExactJson } from '../clients/plant-store-client.ts';
import { type Operation, requestPath } from '../functions/operation.ts';
import { checkPlantTag } from '../infra/webhook-settings.ts';

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
 * is tried by both without a line of its own here. A JSON object body carries the checks' tag
 * (`checkedBody`), so that a plant a sample stores is never delivered to the webhook's subscriber.
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
    ...(request.body === undefined ? {} : { body: checkedBody(request.body) }),
  };
}

/**
 * The body with its `tag` set to the checks' reserved one (`checkPlantTag`), which the webhook's
 * pipe leaves out (docs/decisions/0146-check-plants-not-delivered.md): every plant a check stores
 * is its own, and no subscriber hears of it. Any other text (not JSON, not an object) is returned
 * as it is; an int64 id stays exact.
 */
export function checkedBody(body: string): string {
  let parsed: unknown;
  try {
    parsed = parseExactJson(body);
  } catch {
    return body;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return body;
  return exactJson({ ...parsed, tag: checkPlantTag });
}
