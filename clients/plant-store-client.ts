// A typed client for the Plant Store API: openapi-fetch over the types generated from openapi.yaml
// (clients/plant-store.generated.ts). Paths, bodies and answers are checked by the compiler.
import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { components, paths } from './plant-store.generated.ts';

export type Plant = components['schemas']['Plant'];
export type NewPlant = components['schemas']['NewPlant'];
export type PlantReplacement = components['schemas']['PlantReplacement'];
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
 */
export function createPlantStoreClient(options: PlantStoreClientOptions): PlantStoreClient {
  const client = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    bodySerializer: exactJson,
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
  });
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
 * of its own works too. Ids above 2^53 arrive as bigints, exact. Throws `PlantStoreError` for any
 * answer but a 200.
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
      parseAs: 'text',
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
    if (data === undefined) throw new PlantStoreError(response.status, error);
    yield parseExactJson(data) as PlantListItem[];
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
 * bigint: list items carry int64 ids as JSON numbers.
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
