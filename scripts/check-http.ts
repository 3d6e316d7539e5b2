import { exactJson, parseExactJson } from '../clients/plant-store-client.ts';
import { checkPlantBody, checkPlantTag } from '../functions/checks/check.ts';
import { type CheckFixture, headerOf, type Send } from '../functions/checks/runner.ts';
import { type Operation, requestPath } from '../functions/operation.ts';
import { checksOf, operationNamed } from '../functions/operations.ts';
import type { Answer, Route } from './openapi-exchange.ts';

// Shared by smoke and contract, so a new operation is tried by both without a line here.

export type HttpRequest = Route & {
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string | Uint8Array;
};

export async function sendHttp(
  baseUrl: string,
  request: HttpRequest,
  timeoutMs: number,
): Promise<Answer> {
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

/** The check plant kept through the API, so that a check needs only a URL and a token. */
export function apiFixture(send: Send, token: string): CheckFixture {
  const auth = bearer(token);
  const expect = async (status: number, method: string, path: string, body?: string) => {
    const headers = body === undefined ? auth : { ...auth, 'content-type': 'application/json' };
    const answer = await send({ method, path, headers, ...(body === undefined ? {} : { body }) });
    if (answer.status === status) return answer;
    const got = `${answer.status}, not ${status}: ${answer.body.slice(0, 200)}`;
    throw new Error(`the fixture's ${method} ${path} got ${got}`);
  };
  // The routes as the operations declare them, never written out again here.
  const route = (name: string, id: string) => {
    const operation = operationNamed(name);
    return [operation.method, requestPath(operation, { pathParameters: { id } })] as const;
  };
  return {
    async create(id) {
      await expect(200, ...route('create-plant', id), checkPlantBody(id));
      const etag = headerOf(await expect(200, ...route('get-plant', id)), 'etag');
      if (etag === undefined) throw new Error(`the check plant ${id} was read without an ETag`);
      return etag;
    },
    async delete(id) {
      await expect(204, ...route('delete-plant', id));
    },
  };
}

export function sampleHttpRequest(operation: Operation, id: string, token?: string) {
  const request = checksOf(operation).sample.request(id);
  return {
    method: operation.method,
    path: requestPath(operation, request),
    headers: {
      ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...request.headers,
      ...bearer(token),
    },
    ...(request.body === undefined ? {} : { body: checkedBody(request.body) }),
  } satisfies HttpRequest;
}

export const bearer = (token: string | undefined): Record<string, string> =>
  token === undefined ? {} : { authorization: `Bearer ${token}` };

/** Tagged so the webhook pipe skips it (docs/decisions/0146-check-plants-not-delivered.md). */
export function checkedBody(body: string): string {
  const parsed = parseExact(body);
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return body;
  return exactJson({ ...parsed, tag: checkPlantTag });
}

export function parseExact(text: string): unknown {
  try {
    return parseExactJson(text);
  } catch {
    return undefined;
  }
}

/** `--help` prints the usage and exits 0; a command line that is not `valid` prints it, exit 2. */
export function exitOnUsage(usage: string, help: boolean | undefined, valid: boolean): void {
  if (!help && valid) return;
  (help ? console.log : console.error)(usage);
  process.exit(help ? 0 : 2);
}

/** An error's name and message, and its cause's, where `fetch` hides the network's reason. */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? ` (${error.cause.message})` : '';
  return `${error.name}: ${error.message}${cause}`;
}
