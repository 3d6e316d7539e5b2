import type { KeyObject } from 'node:crypto';
import type { Agent } from 'node:http';
import { sendRequest } from '../connections/outbound-http.ts';
import {
  type Algorithm,
  createLocalKeySet,
  type LocalKeySet,
  type LocalKeySetOptions,
  NoMatchingKeyError,
} from './json-web-key-set.ts';

export type RemoteKeySetOptions = LocalKeySetOptions & {
  /** The whole fetch, connect to last byte. */
  readonly timeoutMs: number;
  /**
   * An unknown `kid` refetches the set only this long after the last fetch, whether it succeeded
   * or failed: during an issuer's outage, tokens naming made-up keys do not each try again.
   */
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
  /** The connections to the issuer (one kept alive, perhaps opened ahead); @default Node's global agent */
  readonly agent?: Agent;
};

/** The issuer's key for a token's `alg` and `kid`, from a key set fetched as needed. */
export type RemoteKeySet = (alg: Algorithm, kid: unknown) => Promise<KeyObject>;

/** A JWKS is a few keys; anything this large is not one. */
const maxJwksBytes = 256 * 1024;

/**
 * jose's `createRemoteJWKSet` rules (fetch once, cache, refetch early for an unknown `kid` after a
 * cooldown, share one fetch between concurrent requests), except that a failed fetch starts the
 * cooldown as a successful one does (jose's starts only on success). Fetched with `node:http(s)`
 * rather than `fetch`, which would load undici into every cold start
 * (docs/decisions/0003-built-ins-without-esm-facades.md). A key set that cannot be fetched or read
 * rejects with a plain error, and a malformed one with an InvalidKeySetError: the verifier answers
 * both with a 503.
 */
export function createRemoteKeySet(url: URL, options: RemoteKeySetOptions): RemoteKeySet {
  let local: LocalKeySet | undefined;
  let fetchedAt = Number.NEGATIVE_INFINITY;
  let attemptedAt = Number.NEGATIVE_INFINITY;
  let pending: Promise<LocalKeySet> | undefined;

  const reload = () => {
    pending ??= fetchJson(url, options)
      .then((jwks) => {
        local = createLocalKeySet(jwks, options);
        fetchedAt = Date.now();
        return local;
      })
      .finally(() => {
        attemptedAt = Date.now();
        pending = undefined;
      });
    return pending;
  };
  let prefetching: Promise<unknown> | undefined;
  if (options.prefetch) {
    setImmediate(() => {
      if (local !== undefined) return;
      prefetching = reload();
      prefetching.catch(() => {});
    });
  }

  /**
   * A request that joins the prefetch and sees it fail fetches once more itself: the prefetch may
   * have met an issuer still starting, or a connection that went stale while Lambda kept an
   * initialized container frozen before its first request. Its failure is not the request's.
   */
  const freshKeys = async () => {
    const joined = pending;
    try {
      return await reload();
    } catch (error) {
      if (joined === undefined || joined !== prefetching) throw error;
      return reload();
    }
  };

  return async (alg, kid) => {
    const keys =
      local !== undefined && Date.now() < fetchedAt + options.cacheMaxAgeMs
        ? local
        : await freshKeys();
    try {
      return keys(alg, kid);
    } catch (error) {
      if (error instanceof NoMatchingKeyError && Date.now() >= attemptedAt + options.cooldownMs) {
        return (await reload())(alg, kid);
      }
      throw error;
    }
  };
}

async function fetchJson(
  url: URL,
  { timeoutMs, agent }: Pick<RemoteKeySetOptions, 'timeoutMs' | 'agent'>,
): Promise<unknown> {
  const { statusCode, body } = await sendRequest(url, {
    method: 'GET',
    headers: { accept: 'application/json, application/jwk-set+json' },
    agent,
    timeoutMs,
    maxResponseBytes: maxJwksBytes,
  });
  if (statusCode !== 200) throw new Error(`The JWKS at ${url.host} answered ${statusCode}`);
  return JSON.parse(body);
}
