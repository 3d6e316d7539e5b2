// A typed client for the Plant Store API: openapi-fetch over the types generated from openapi.yaml
// (clients/plant-store.generated.ts). Paths, bodies and answers are checked by the compiler.
import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { components, paths } from './plant-store.generated.ts';

export type Plant = components['schemas']['Plant'];
export type NewPlant = components['schemas']['NewPlant'];
export type ApiError = components['schemas']['Error'];
export type PlantStoreClient = Client<paths>;

export interface PlantStoreClientOptions {
  /** The API's base URL: `http://127.0.0.1:3000` locally, the `ApiUrl` stack output on AWS. */
  readonly baseUrl: string;
  /**
   * A bearer access token with the scope `plants/write`, or a function that returns a current one
   * (called for each request, so it can refresh). Without one, requests carry no Authorization.
   */
  readonly token?: string | (() => string | Promise<string>);
  /** @default globalThis.fetch */
  readonly fetch?: ClientOptions['fetch'];
}

/**
 * `const { data, error, response } = await client.POST('/plants', { body: { id: 1, name: 'Fern' } })`:
 * `data` is the Plant on 200, `error` the Error body otherwise.
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
