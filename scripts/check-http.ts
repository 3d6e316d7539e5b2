import { exactJson, parseExactJson } from '../clients/plant-store-client.ts';
import { checkPlantBody, checkPlantTag } from '../functions/checks/check.ts';
import { type CheckFixture, headerOf, type Send } from '../functions/checks/runner.ts';
import { type Operation, requestPath } from '../functions/operation.ts';
import { checksOf } from '../functions/operations.ts';

/**
 * What `npm run smoke` and `npm run contract` share to try a running API over HTTP: a request
 * sent and its answer read, the check plant kept through the API itself, and each operation's
 * sample as a request, so that a new operation is tried by both without a line of its own here.
 */

/** An HTTP request as `fetch` sends it: the path with its query, lowercase header names. */
export interface HttpRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string | Uint8Array;
}

/** An answer with lowercase header names. */
export interface HttpAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** Sends `request` to the API at `baseUrl`, following no redirect; throws when no answer came. */
export async function sendHttp(
  baseUrl: string,
  request: HttpRequest,
  timeoutMs: number,
): Promise<HttpAnswer> {
  const response = await fetch(`${baseUrl.replace(/\/+$/, '')}${request.path}`, {
    method: request.method,
    headers: request.headers,
    ...(request.body === undefined ? {} : { body: request.body }),
    redirect: 'manual',
    signal: AbortSignal.timeout(timeoutMs),
  });
  return {
    status: response.status,
    headers: Object.fromEntries(response.headers),
    body: await response.text(),
  };
}

/**
 * The scripts' fixture: the check plant kept through the API, as any client with a token would
 * keep it (POST /plants, then a read for its ETag; DELETE /plants/{id}), so that a check of a
 * deployed stage needs nothing but its URL and a token.
 */
export function apiFixture(send: Send, token: string): CheckFixture {
  const auth = { authorization: `Bearer ${token}` };
  const expect = async (status: number, method: string, path: string, body?: string) => {
    const headers = body === undefined ? auth : { ...auth, 'content-type': 'application/json' };
    const answer = await send({ method, path, headers, ...(body === undefined ? {} : { body }) });
    if (answer.status !== status) {
      const excerpt = answer.body.slice(0, 200);
      throw new Error(
        `the fixture's ${method} ${path} got ${answer.status}, not ${status}: ${excerpt}`,
      );
    }
    return answer;
  };
  return {
    async create(id) {
      await expect(200, 'POST', '/plants', checkPlantBody(id));
      const etag = headerOf(await expect(200, 'GET', `/plants/${id}`), 'etag');
      if (etag === undefined) throw new Error(`the check plant ${id} was read without an ETag`);
      return etag;
    },
    async delete(id) {
      await expect(204, 'DELETE', `/plants/${id}`);
    },
  };
}

/**
 * The operation's sample request about the plant `id` (`sample` in its checks), as sent over
 * HTTP: its route's path filled in, a JSON body's content type, and the token when there is one.
 * A JSON object body carries the checks' tag (`checkedBody`), so that a plant a sample stores is
 * never delivered to the webhook's subscriber.
 */
export function sampleHttpRequest(operation: Operation, id: string, token?: string) {
  const request = checksOf(operation).sample.request(id);
  return {
    method: operation.method,
    path: requestPath(operation, request),
    headers: {
      ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...request.headers,
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    },
    ...(request.body === undefined ? {} : { body: checkedBody(request.body) }),
  } satisfies HttpRequest;
}

/**
 * The body with its `tag` set to the checks' reserved one (`checkPlantTag`), which the webhook's
 * pipe leaves out (docs/decisions/0146-check-plants-not-delivered.md). Any other text (not JSON,
 * not an object) is returned as it is; an int64 id stays exact.
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

/** An error's name and message, and its cause's, where `fetch` hides the network's reason. */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? ` (${error.cause.message})` : '';
  return `${error.name}: ${error.message}${cause}`;
}
