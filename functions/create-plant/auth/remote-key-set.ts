import {
  type CryptoKey,
  createLocalJWKSet,
  errors,
  type FlattenedJWSInput,
  type JSONWebKeySet,
  type JWSHeaderParameters,
} from 'jose';
import { exchange } from '../outbound-http.ts';

export type RemoteKeySetOptions = {
  /** The whole fetch, connect to last byte. */
  readonly timeoutMs: number;
  /** An unknown `kid` refetches the set at most this often. */
  readonly cooldownMs: number;
  /** A set older than this is refetched before use. */
  readonly cacheMaxAgeMs: number;
  /**
   * Start fetching the set once the creating module has loaded (the next turn of the event
   * loop), not on the first token: a cold start then fetches it while the runtime gets the first
   * event, concurrently with opening the DynamoDB connection. Never awaited and never thrown: a
   * failed prefetch only means the first token fetches. @default false
   */
  readonly prefetch?: boolean;
};

export type RemoteKeySet = (
  protectedHeader: JWSHeaderParameters,
  token: FlattenedJWSInput,
) => Promise<CryptoKey>;

/** A JWKS is a few keys; anything this large is not one. */
const maxJwksBytes = 256 * 1024;

/**
 * jose's `createRemoteJWKSet` rules (fetch once, cache, refetch early for an unknown `kid` after a
 * cooldown, share one fetch between concurrent requests), fetched with `node:http(s)`. jose's own
 * builds a `Headers` when created and calls `fetch`, and either loads undici: about 20 ms of every
 * cold start (`npm run bench`). A key set that cannot be fetched or read rejects with a plain
 * error, and a malformed one with jose's JWKSInvalid: the verifier answers both with a 503.
 */
export function createRemoteKeySet(url: URL, options: RemoteKeySetOptions): RemoteKeySet {
  let local: ReturnType<typeof createLocalJWKSet> | undefined;
  let fetchedAt = Number.NEGATIVE_INFINITY;
  let pending: Promise<ReturnType<typeof createLocalJWKSet>> | undefined;

  const reload = () => {
    pending ??= fetchJson(url, options.timeoutMs)
      .then((jwks) => {
        local = createLocalJWKSet(jwks as JSONWebKeySet);
        fetchedAt = Date.now();
        return local;
      })
      .finally(() => {
        pending = undefined;
      });
    return pending;
  };
  if (options.prefetch) {
    setImmediate(() => {
      if (local === undefined) reload().catch(() => {});
    });
  }

  return async (protectedHeader, token) => {
    const keys =
      local !== undefined && Date.now() < fetchedAt + options.cacheMaxAgeMs
        ? local
        : await reload();
    try {
      return await keys(protectedHeader, token);
    } catch (error) {
      if (
        error instanceof errors.JWKSNoMatchingKey &&
        Date.now() >= fetchedAt + options.cooldownMs
      ) {
        return (await reload())(protectedHeader, token);
      }
      throw error;
    }
  };
}

async function fetchJson(url: URL, timeoutMs: number): Promise<unknown> {
  const { statusCode, body } = await exchange(url, {
    method: 'GET',
    headers: { accept: 'application/json, application/jwk-set+json' },
    timeoutMs,
    maxResponseBytes: maxJwksBytes,
  });
  if (statusCode !== 200) throw new Error(`The JWKS at ${url.host} answered ${statusCode}`);
  return JSON.parse(body);
}
