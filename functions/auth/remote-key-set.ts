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
  /** Connect to last byte. */
  readonly timeoutMs: number;
  /** After any fetch, failed too: in an outage, tokens naming made-up keys do not each refetch. */
  readonly cooldownMs: number;
  readonly cacheMaxAgeMs: number;
  /** After a request's fetch fails: an outage costs one fetch per container per interval. */
  readonly retryMs?: number;
  /** RFC 5861's `stale-if-error` (docs/decisions/0149-key-set-outage.md). */
  readonly staleIfErrorMs?: number;
  /** A stale set served: its requests succeed, and nothing else shows the outage. */
  readonly onStaleKeys?: (ageMs: number, error: unknown) => void;
  readonly now?: () => number;
  /** Fetch on the next turn, not the first token: a cold start fetches during init. */
  readonly prefetch?: boolean;
  readonly agent?: Agent;
};

export type RemoteKeySet = (alg: Algorithm, kid: unknown) => Promise<KeyObject>;

const maxJwksBytes = 256 * 1024;

/**
 * jose's `createRemoteJWKSet` rules, except that a failed fetch starts the cooldown too, holds the
 * next back for `retryMs`, and a stale set may serve for `staleIfErrorMs`. Over `node:http(s)`
 * (docs/decisions/0003-built-ins-without-esm-facades.md).
 */
export function createRemoteKeySet(url: URL, options: RemoteKeySetOptions): RemoteKeySet {
  const now = options.now ?? (() => Date.now());
  const { retryMs = 0, staleIfErrorMs = 0 } = options;
  let local: LocalKeySet | undefined;
  let fetchedAt = Number.NEGATIVE_INFINITY;
  let attemptedAt = Number.NEGATIVE_INFINITY;
  let pending: Promise<LocalKeySet> | undefined;
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

  /** Its failure holds back the next `retryMs`; a failed prefetch does not. */
  const requestedReload = async () => {
    try {
      return await reload();
    } catch (error) {
      failure = { at: now(), error };
      throw error;
    }
  };

  /** A failed prefetch (an issuer starting, a connection gone stale) is retried by the request. */
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

  const staleOr = (error: unknown) => {
    if (local !== undefined && now() < fetchedAt + options.cacheMaxAgeMs + staleIfErrorMs) {
      return local;
    }
    throw error;
  };

  const usableKeys = async () => {
    if (local !== undefined && now() < fetchedAt + options.cacheMaxAgeMs) return local;
    // After a failure, a fetch under way is joined, none started.
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
