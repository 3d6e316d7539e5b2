// A typed client for the Plant Store API: openapi-fetch over the types generated from openapi.yaml
// (clients/plant-store.generated.ts). Paths, bodies and answers are checked by the compiler.
import createClient, { type Client, type ClientOptions, type Middleware } from 'openapi-fetch';
import type { components, paths } from './plant-store.generated.ts';

/**
 * An int64 id. An answer gives a `number` when it is within ±(2^53 − 1) and an exact `bigint`
 * beyond; a request may send either.
 */
export type PlantId = components['schemas']['PlantId'];
export type Plant = components['schemas']['Plant'];
export type NewPlant = components['schemas']['NewPlant'];
export type PlantReplacement = components['schemas']['PlantReplacement'];
/** A plant as listed, read and replaced: its `id` is a `PlantId`, a `bigint` beyond 2^53. */
export type PlantListItem = components['schemas']['PlantListItem'];
export type ApiError = components['schemas']['Error'];
export type PlantStoreClient = Client<paths>;

export interface PlantStoreClientOptions {
  /** The API's base URL: `http://127.0.0.1:3000` locally, the `ApiUrl` stack output on AWS. */
  readonly baseUrl: string;
  /**
   * A bearer access token with the scopes of the operations called (`plants/read` to list and
   * read, `plants/write` to create, replace and delete), or a function that returns a current one (called for
   * each request, so it can refresh). Without one, requests carry no Authorization.
   */
  readonly token?: string | (() => string | Promise<string>);
  /** @default globalThis.fetch */
  readonly fetch?: ClientOptions['fetch'];
}

/**
 * `const { data, error, response } = await client.POST('/plants', { body: { id: 1, name: 'Fern' } })`:
 * `data` is the Plant on 200, `error` the Error body otherwise. `client.DELETE('/plants/{id}',
 * { params: { path: { id } } })` answers 204 with no `data`; to list, `listPlantPages(client)`.
 * A replace that loses no update sends the ETag its read answered:
 * `client.PUT('/plants/{id}', { params: { path: { id }, header: { 'If-Match': etag } }, body })`,
 * with `etag` from `(await client.GET('/plants/{id}', …)).response.headers.get('etag')`.
 *
 * Every answer's body, `data` and `error` alike, is parsed by `parseExactJson`, so an id read
 * from any answer is exact and can be sent back as it is.
 */
export function createPlantStoreClient(options: PlantStoreClientOptions): PlantStoreClient {
  const client = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    bodySerializer: exactJson,
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
  });
  // Registered first, so its onResponse runs after every other middleware's, on the final answer.
  client.use(exactAnswers);
  for (const method of clientMethods) {
    const call = client[method] as (...args: unknown[]) => Promise<{ error?: unknown }>;
    Object.assign(client, {
      [method]: async (...args: unknown[]) => withExactError(await call(...args)),
    });
  }
  const { token } = options;
  if (token === undefined) return client;
  client.use({
    async onRequest({ request }) {
      const current = typeof token === 'string' ? token : await token();
      request.headers.set('authorization', `Bearer ${current}`);
      return request;
    },
  });
  return client;
}

const clientMethods = [
  'GET',
  'PUT',
  'POST',
  'DELETE',
  'OPTIONS',
  'HEAD',
  'PATCH',
  'TRACE',
  'request',
] as const satisfies readonly (keyof PlantStoreClient)[];

/**
 * An answer whose `json()` is `parseExactJson`, and which keeps its text for an error body.
 * openapi-fetch reads a success with `json()` only when it has a Content-Length (otherwise, and
 * for every error, it calls `JSON.parse` itself), so this copy always has one.
 */
class ExactJsonResponse extends Response {
  readonly #text: string;

  constructor(body: ArrayBuffer, answer: Response) {
    const headers = new Headers(answer.headers);
    headers.set('content-length', String(body.byteLength));
    super(body, { status: answer.status, statusText: answer.statusText, headers });
    Object.defineProperties(this, {
      url: { value: answer.url },
      redirected: { value: answer.redirected },
    });
    this.#text = new TextDecoder().decode(body);
  }

  override readonly json = async (): Promise<unknown> => parseExactJson(await this.text());

  /** The body as openapi-fetch gives an error: parsed when it is JSON, else the text. */
  errorBody(): unknown {
    try {
      return parseExactJson(this.#text);
    } catch {
      return this.#text;
    }
  }
}

const exactAnswers: Middleware = {
  async onResponse({ response }) {
    if (response.body === null) return undefined;
    return new ExactJsonResponse(await response.arrayBuffer(), response);
  },
};

/** openapi-fetch has parsed `error` with `JSON.parse`: it is parsed again, exactly, from the text. */
function withExactError<Result extends { error?: unknown; response?: Response }>(
  result: Result,
): Result {
  if (result.error !== undefined && result.response instanceof ExactJsonResponse) {
    result.error = result.response.errorBody();
  }
  return result;
}

/** An answer of the API other than the success a helper below waits for. */
export class PlantStoreError extends Error {
  readonly status: number;
  /** The `Error` body, or the gateway's `{message}`, as answered. */
  readonly body: unknown;

  constructor(status: number, body: unknown) {
    const message = (body as { message?: unknown } | undefined)?.message;
    super(`The Plant Store answered ${status}${typeof message === 'string' ? `: ${message}` : ''}`);
    this.name = 'PlantStoreError';
    this.status = status;
    this.body = body;
  }
}

/**
 * Every page of `GET /plants`, from the first to the last: each answer's
 * `Link: <...>; rel="next"` is followed until an answer has none. The next link's query (its
 * `limit` and `cursor`, as given) goes to this client's own `/plants`, so a base URL with a path
 * of its own works too. Throws `PlantStoreError` for any answer but a 200.
 */
export async function* listPlantPages(
  client: PlantStoreClient,
  options: { readonly limit?: number; readonly signal?: AbortSignal } = {},
): AsyncGenerator<PlantListItem[], void, undefined> {
  let search = options.limit === undefined ? '' : `limit=${options.limit}`;
  for (;;) {
    const { data, error, response } = await client.GET('/plants', {
      // The query is the link's own text: nothing in it is parsed and written again.
      querySerializer: () => search,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
    if (data === undefined) throw new PlantStoreError(response.status, error);
    yield data;
    const next = nextLinkTarget(response.headers.get('link'));
    if (next === undefined) return;
    search = new URL(next, 'http://next.invalid/').search.slice(1);
  }
}

/**
 * The target of the `rel="next"` link in a `Link` header (RFC 8288: links separated by commas,
 * `rel` a space-separated list of relation types, quoted or not, in any case), as written.
 */
export function nextLinkTarget(header: string | null): string | undefined {
  if (header === null) return undefined;
  for (const [, target, params = ''] of header.matchAll(/<([^>]*)>((?:[^<"]|"[^"]*")*)/g)) {
    const rel = /;\s*rel\s*=\s*(?:"([^"]*)"|([^\s;,]+))/i.exec(params);
    const types = (rel?.[1] ?? rel?.[2] ?? '').toLowerCase().split(/\s+/);
    if (types.includes('next')) return target;
  }
  return undefined;
}

/**
 * JSON.parse, except that an integer a JavaScript number cannot hold exactly stays exact, as a
 * bigint: answers carry int64 ids as JSON numbers.
 */
export function parseExactJson(text: string): unknown {
  const parse = JSON.parse as (
    text: string,
    reviver: (key: string, value: unknown, context?: { source?: string }) => unknown,
  ) => unknown;
  return parse(text, (_key, value, context) => {
    const source = context?.source ?? '';
    return typeof value === 'number' && !Number.isSafeInteger(value) && /^-?\d+$/.test(source)
      ? BigInt(source)
      : value;
  });
}

/** `JSON.rawJSON` (Node 21+, every current browser) is newer than TypeScript's lib files. */
declare global {
  interface JSON {
    rawJSON(text: string): unknown;
  }
}

/**
 * JSON.stringify, except that a bigint is written as its exact digits: ids are int64, and a
 * JavaScript number rounds integers above 2^53.
 */
export function exactJson(body: unknown): string {
  return JSON.stringify(body, (_key, value: unknown) =>
    typeof value === 'bigint' ? JSON.rawJSON(value.toString()) : value,
  );
}
