import type { Agent } from 'node:http';
import {
  type CryptoKey,
  createLocalJWKSet,
  errors,
  type FlattenedJWSInput,
  type JSONWebKeySet,
  type JWSHeaderParameters,
} from 'jose';
import { sendRequest } from '../connections/outbound-http.ts';

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
   * failed prefetch only means the first token fetches. While the set is on its way, WebCrypto
   * (through which jose verifies) is warmed up too. @default false
   */
  readonly prefetch?: boolean;
  /** The connections to the issuer (one kept alive, perhaps opened ahead); @default Node's global agent */
  readonly agent?: Agent;
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
 * builds a `Headers` when created and calls `fetch`, and either loads undici into every cold start
 * (docs/decisions/0003-built-ins-without-esm-facades.md). A key set that cannot be fetched or read
 * rejects with a plain error, and a malformed one with jose's JWKSInvalid: the verifier answers
 * both with a 503.
 */
export function createRemoteKeySet(url: URL, options: RemoteKeySetOptions): RemoteKeySet {
  let local: ReturnType<typeof createLocalJWKSet> | undefined;
  let fetchedAt = Number.NEGATIVE_INFINITY;
  let pending: Promise<ReturnType<typeof createLocalJWKSet>> | undefined;

  const reload = () => {
    pending ??= fetchJson(url, options)
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
  let prefetching: Promise<unknown> | undefined;
  if (options.prefetch) {
    setImmediate(() => {
      if (local === undefined) {
        prefetching = reload();
        prefetching.catch(() => {});
      }
      setImmediate(() => warmUpWebCrypto().catch(() => {}));
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

  return async (protectedHeader, token) => {
    const keys =
      local !== undefined && Date.now() < fetchedAt + options.cacheMaxAgeMs
        ? local
        : await freshKeys();
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

/**
 * WebCrypto loads its modules and compiles its RSA path on first use: CPU that would otherwise sit
 * between the key set's arrival and the first token's verdict
 * (docs/decisions/0002-open-connections-early.md). Importing a public key and checking an empty
 * signature with it does that work while the network is busy. The key's modulus is 2^2047 + 1:
 * well-formed, and it verifies nothing.
 */
async function warmUpWebCrypto(): Promise<void> {
  const modulus = Buffer.alloc(256);
  modulus[0] = 0x80;
  modulus[255] = 0x01;
  const algorithm = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' };
  const jwk = { kty: 'RSA', n: modulus.toString('base64url'), e: 'AQAB' };
  const key = await crypto.subtle.importKey('jwk', jwk, algorithm, false, ['verify']);
  await crypto.subtle.verify(algorithm, key, new Uint8Array(256), new Uint8Array(0));
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
