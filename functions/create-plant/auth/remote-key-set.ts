import http from 'node:http';
import https from 'node:https';
import {
  type CryptoKey,
  createLocalJWKSet,
  errors,
  type FlattenedJWSInput,
  type JSONWebKeySet,
  type JWSHeaderParameters,
} from 'jose';

export type RemoteKeySetOptions = {
  /** The whole fetch, connect to last byte. */
  readonly timeoutMs: number;
  /** An unknown `kid` refetches the set at most this often. */
  readonly cooldownMs: number;
  /** A set older than this is refetched before use. */
  readonly cacheMaxAgeMs: number;
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
 * cold start (`npm run bench`). Failures are jose's errors, so callers map them the same way.
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

function fetchJson(url: URL, timeoutMs: number): Promise<unknown> {
  const transport = url.protocol === 'http:' ? http : https;
  return new Promise((resolve, reject) => {
    const request = transport.get(
      url,
      { headers: { accept: 'application/json, application/jwk-set+json' } },
      (response) => {
        if (response.statusCode !== 200) {
          response.resume();
          clearTimeout(timer);
          reject(new errors.JOSEError('Expected 200 OK from the JSON Web Key Set HTTP response'));
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxJwksBytes) {
            request.destroy(
              new errors.JOSEError('The JSON Web Key Set HTTP response is too large'),
            );
          } else chunks.push(chunk);
        });
        response.on('end', () => {
          clearTimeout(timer);
          try {
            resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
          } catch (cause) {
            reject(
              new errors.JOSEError('Failed to parse the JSON Web Key Set HTTP response as JSON', {
                cause,
              }),
            );
          }
        });
        response.on('error', reject);
      },
    );
    const timer = setTimeout(() => request.destroy(new errors.JWKSTimeout()), timeoutMs);
    request.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}
