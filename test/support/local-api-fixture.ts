import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { type LocalApi, type LocalApiOptions, startLocalApi } from '../../dev-server/local-api.ts';
import { operations } from '../../functions/operations.ts';

/** Its secret is strong enough for a server other machines can reach (`minExposedSecretLength`). */
export const client = {
  id: 'test-client',
  secret: 'test-secret-0f6c2d8e9a4b4f1d8c3e7a5b',
} as const;

/** A fresh temporary data directory, removed by the returned function. */
export async function tempDataDir(): Promise<{ dir: string; remove: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'plants-local-'));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** The local API on a free loopback port, quiet, with `client` and the real handlers, but for `options`. */
export function startTestApi(options: Partial<LocalApiOptions> = {}): Promise<LocalApi> {
  return startLocalApi({ host: '127.0.0.1', port: 0, client, log: () => {}, ...options });
}

/** One stand-in module (a fixture under `dev-server-handlers/`) for every operation's handler. */
export function everyHandler(fixture: string): NonNullable<LocalApiOptions['handlers']> {
  const url = new URL(`dev-server-handlers/${fixture}`, import.meta.url).href;
  return Object.fromEntries(operations.map(({ name }) => [name, url]));
}

/** The client-credentials grant for `client`, as a request to the token endpoint. */
export const tokenRequest = {
  method: 'POST',
  headers: {
    'content-type': 'application/x-www-form-urlencoded',
    authorization: `Basic ${Buffer.from(`${client.id}:${client.secret}`).toString('base64')}`,
  },
  body: 'grant_type=client_credentials',
};

/**
 * The local API for the `describe` this is called in (or the file): started, with a
 * client-credentials token for `client`, before its tests, and closed after them. `api` and
 * `token` are read inside a test or a hook, once the API has started. Options that depend on
 * something an earlier `beforeAll` starts (a webhook receiver's URL), or that take a while to
 * make, are given as a function, which may be async.
 */
export function useTestApi(
  options:
    | Partial<LocalApiOptions>
    | (() => Partial<LocalApiOptions> | Promise<Partial<LocalApiOptions>>) = {},
): {
  readonly api: LocalApi;
  readonly token: string;
} {
  let started: { api: LocalApi; token: string } | undefined;
  beforeAll(async () => {
    const api = await startTestApi(typeof options === 'function' ? await options() : options);
    started = { api, token: await clientCredentialsToken(api) };
  });
  afterAll(async () => {
    await started?.api.close();
  });
  const get = () => {
    if (started === undefined) throw new Error('the test API is read before it has started');
    return started;
  };
  return {
    get api() {
      return get().api;
    },
    get token() {
      return get().token;
    },
  };
}

export async function clientCredentialsToken(api: LocalApi): Promise<string> {
  const response = await fetch(`${api.url}/oauth2/token`, tokenRequest);
  const body = (await response.json()) as { access_token: string };
  return body.access_token;
}

export function createPlant(api: LocalApi, token: string | undefined, body: string) {
  return fetch(`${api.url}/plants`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    },
    body,
  });
}
