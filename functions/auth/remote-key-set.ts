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
   * After a fetch made for a request fails, a set that is missing or past its age is not fetched
   * again for this long: an issuer's outage then costs one fetch per container per interval, and
   * the requests in between are answered at once instead of each fetching, or each waiting out a
   * hanging one. @default 0
   */
  readonly retryMs?: number;
  /**
   * How long past its age a fetched set may still serve while fetches fail (RFC 5861's
   * `stale-if-error`), docs/decisions/0149-key-set-outage.md. Any set fetched replaces it at once,
   * so a key the issuer withdrew is refused as soon as the issuer can be reached. @default 0
   */
  readonly staleIfErrorMs?: number;
  /**
   * A fetch failed and a set past its age serves instead: told for each request that waited on the
   * failed fetch (one, where requests never overlap), since the requests the set then verifies
   * succeed and nothing else shows the outage.
   */
  readonly onStaleKeys?: (ageMs: number, error: unknown) => void;
  /** The clock the ages and intervals are read on. @default Date.now */
  readonly now?: () => number;
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
 * cooldown as a successful one does (jose's starts only on success), a failed fetch holds the next
 * back for `retryMs`, and a set past its age may serve for `staleIfErrorMs` while fetches fail.
 * Fetched with `node:http(s)` rather than `fetch`, which would load undici into every cold start
 * (docs/decisions/0003-built-ins-without-esm-facades.md). A key set that cannot be fetched or read
 * rejects with a plain error, and a malformed one with an InvalidKeySetError: the verifier answers
 * both with a 503.
 */
export function createRemoteKeySet(url: URL, options: RemoteKeySetOptions): RemoteKeySet {
  const now = options.now ?? (() => Date.now());
  const { retryMs = 0, staleIfErrorMs = 0 } = options;
  let local: LocalKeySet | undefined;
  let fetchedAt = Number.NEGATIVE_INFINITY;
  let attemptedAt = Number.NEGATIVE_INFINITY;
  let pending: Promise<LocalKeySet> | undefined;
  /** The last failure of a fetch made for a request, until a fetch succeeds. */
  let failure: { readonly at: number; readonly error: unknown } | undefined;

  const reload = () => {
    pending ??= fetchJson(url, options)
      .then((jwks) => {
        local = createLocalKeySet(jwks, options);
        fetchedAt = now();
        failure = undefined;
        return local;
      })
      .finally(() => {
        attemptedAt = now();
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
   * A fetch on a request's behalf: its failure is remembered, so that the requests of the next
   * `retryMs` do not fetch again. A failed prefetch is not remembered: the request after it fetches.
   */
  const requestedReload = async () => {
    try {
      return await reload();
    } catch (error) {
      failure = { at: now(), error };
      throw error;
    }
  };

  /**
   * A request that joins the prefetch and sees it fail fetches once more itself: the prefetch may
   * have met an issuer still starting, or a connection that went stale while Lambda kept an
   * initialized container frozen before its first request. Its failure is not the request's.
   */
  const freshKeys = async () => {
    const joined = pending;
    if (joined !== undefined && joined === prefetching) {
      try {
        return await joined;
      } catch {
        return requestedReload();
      }
    }
    return requestedReload();
  };

  /** The set a request uses when none younger than its age can be had: a stale one, if allowed. */
  const staleOr = (error: unknown) => {
    if (local !== undefined && now() < fetchedAt + options.cacheMaxAgeMs + staleIfErrorMs) {
      return local;
    }
    throw error;
  };

  const usableKeys = async () => {
    if (local !== undefined && now() < fetchedAt + options.cacheMaxAgeMs) return local;
    // Within the interval after a failure, nothing is fetched: a fetch already under way (one a
    // concurrent request started) is joined, anything else answered at once.
    if (pending === undefined && failure !== undefined && now() < failure.at + retryMs) {
      return staleOr(new KeySetRetryError(url, failure.error));
    }
    try {
      return await freshKeys();
    } catch (error) {
      const stale = staleOr(error);
      options.onStaleKeys?.(now() - fetchedAt, error);
      return stale;
    }
  };

  return async (alg, kid) => {
    const keys = await usableKeys();
    try {
      return keys(alg, kid);
    } catch (error) {
      if (error instanceof NoMatchingKeyError && now() >= attemptedAt + options.cooldownMs) {
        return (await requestedReload())(alg, kid);
      }
      throw error;
    }
  };
}

/** The last fetch of the key set failed, and the next is not due yet. */
export class KeySetRetryError extends Error {
  constructor(url: URL, cause: unknown) {
    super(`The JWKS at ${url.host} is not fetched again yet after a failure`, { cause });
    this.name = 'KeySetRetryError';
  }
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
