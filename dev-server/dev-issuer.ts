import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import { type JSONWebKeySet, jwtVerify, SignJWT } from 'jose';
import { operations } from '../functions/operations.ts';
import type { LocalConfig } from './config.ts';
import { type GatewayResponse, jsonResponse, uriDecoded } from './http-gateway.ts';
import { type SigningKey, signingAlgorithm } from './issuer-files.ts';

const apiScopes: readonly string[] = [...new Set(operations.map(({ scope }) => scope))].sort();
/** Cognito's default access-token lifetime. */
const tokenLifetimeSeconds = 3600;

export const issuerPaths = { token: '/oauth2/token', jwks: '/.well-known/jwks.json' } as const;

/** The Cognito user pool's stand-in: one client-credentials client, tokens shaped like Cognito's. */
export class DevIssuer {
  readonly issuer: string;
  readonly #key: SigningKey;
  readonly #client: LocalConfig['client'];

  constructor(options: { issuer: string; key: SigningKey; client: LocalConfig['client'] }) {
    this.issuer = options.issuer;
    this.#key = options.key;
    this.#client = options.client;
  }

  jwks(): JSONWebKeySet {
    return { keys: [this.#key.publicJwk] };
  }

  async mintAccessToken(scopes: readonly string[] = apiScopes): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    const claims = { client_id: this.#client.id, token_use: 'access', scope: scopes.join(' ') };
    return new SignJWT({ ...claims, auth_time: now, version: 2 })
      .setProtectedHeader({ alg: signingAlgorithm, kid: this.#key.kid })
      .setIssuer(this.issuer)
      .setSubject(this.#client.id)
      .setIssuedAt(now)
      .setExpirationTime(now + tokenLifetimeSeconds)
      .setJti(randomUUID())
      .sign(this.#key.privateKey);
  }

  /** Whether `Authorization` holds this issuer's unexpired token or this client's credentials. */
  async vouchesFor(authorization: string | undefined): Promise<boolean> {
    const bearer = /^bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
    if (bearer === undefined) {
      const credentials = clientCredentials(authorization, new URLSearchParams());
      return credentials !== undefined && this.#isClient(credentials);
    }
    const options = { issuer: this.issuer, algorithms: [signingAlgorithm] };
    const verified = await jwtVerify(bearer, this.#key.publicKey, options).catch(() => undefined);
    return verified !== undefined;
  }

  /** The id and the secret each compared in constant time, both always, so no timing tells which. */
  #isClient({ id, secret }: { id: string; secret: string | undefined }): boolean {
    const same = [sameText(id, this.#client.id), sameText(secret, this.#client.secret)];
    return same.every(Boolean);
  }

  async tokenEndpoint(request: { contentType?: string; authorization?: string; body: string }) {
    const mediaType = request.contentType?.split(';')[0]?.trim().toLowerCase();
    if (mediaType !== 'application/x-www-form-urlencoded')
      return oauthError(400, 'invalid_request');
    const form = new URLSearchParams(request.body);
    const grantType = form.get('grant_type');
    if (grantType === null) return oauthError(400, 'invalid_request');
    if (grantType !== 'client_credentials') return oauthError(400, 'unsupported_grant_type');

    const credentials = clientCredentials(request.authorization, form);
    if (credentials === undefined) return oauthError(400, 'invalid_request');
    if (!this.#isClient(credentials)) return oauthError(401, 'invalid_client');
    const requested = form.get('scope')?.split(' ').filter(Boolean) ?? [];
    if (requested.some((scope) => !apiScopes.includes(scope))) {
      return oauthError(400, 'invalid_scope');
    }
    // Like Cognito: no scope asked for means every scope the client is allowed.
    const scopes = requested.length > 0 ? [...new Set(requested)] : apiScopes;
    const token = await this.mintAccessToken(scopes);
    const answer = { access_token: token, expires_in: tokenLifetimeSeconds, token_type: 'Bearer' };
    return jsonResponse(200, answer, noStore);
  }
}

const noStore = {
  'content-type': 'application/json;charset=UTF-8',
  'cache-control': 'no-store',
  pragma: 'no-cache',
} as const;

export function oauthError(statusCode: 400 | 401 | 413 | 429, error: string): GatewayResponse {
  // RFC 6749 §5.2: a 401 for client authentication names the scheme the client should use.
  const headers =
    statusCode === 401 ? { ...noStore, 'www-authenticate': 'Basic realm="oauth2"' } : noStore;
  return jsonResponse(statusCode, { error }, headers);
}

function clientCredentials(
  authorization: string | undefined,
  form: URLSearchParams,
): { id: string; secret: string | undefined } | undefined {
  const basic = /^basic\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
  if (basic === undefined) {
    const id = form.get('client_id');
    return id === null ? undefined : { id, secret: form.get('client_secret') ?? undefined };
  }
  const decoded = Buffer.from(basic, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return { id: decoded, secret: undefined };
  // RFC 6749 §2.3.1: both halves are form-url-encoded before they are joined.
  const formDecode = (half: string) => uriDecoded(half.replaceAll('+', ' '));
  return { id: formDecode(decoded.slice(0, colon)), secret: formDecode(decoded.slice(colon + 1)) };
}

/** Compared as SHA-256 digests, which are all one length, so that no length is told either. */
function sameText(given: string | undefined, expected: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text).digest();
  const same = timingSafeEqual(digest(given ?? ''), digest(expected));
  return same && given !== undefined;
}
