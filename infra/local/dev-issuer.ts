import { randomUUID, timingSafeEqual } from 'node:crypto';
import { type JSONWebKeySet, SignJWT } from 'jose';
import type { DevClient } from './config.ts';
import { type SigningKey, signingAlgorithm } from './signing-key.ts';

/** The resource-server scope that `POST /plants` requires, as defined in the Cognito user pool. */
export const plantsWriteScope = 'plants/write';
/** Cognito's default access-token lifetime. */
export const tokenLifetimeSeconds = 3600;

export const issuerPaths = {
  token: '/oauth2/token',
  jwks: '/.well-known/jwks.json',
  openidConfiguration: '/.well-known/openid-configuration',
} as const;

/** What the HTTP layer needs to answer a request: no dependency on node:http here. */
export interface IssuerResponse {
  readonly statusCode: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: unknown;
}

export interface TokenRequest {
  /** Lower-cased header names. */
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly body: string;
}

export interface DevIssuerOptions {
  /** The URL the tokens name in `iss`, and where the JWKS is served: the local API's base URL. */
  readonly issuer: string;
  readonly key: SigningKey;
  readonly client: DevClient;
}

/**
 * A development stand-in for the Cognito user pool: one client-credentials app client, one scope,
 * access tokens shaped like Cognito's (no `aud`; `client_id`, `token_use: access`, `scope`).
 */
export class DevIssuer {
  readonly issuer: string;
  readonly #key: SigningKey;
  readonly #client: DevClient;

  constructor(options: DevIssuerOptions) {
    this.issuer = options.issuer;
    this.#key = options.key;
    this.#client = options.client;
  }

  get tokenUrl(): string {
    return `${this.issuer}${issuerPaths.token}`;
  }

  get jwksUrl(): string {
    return `${this.issuer}${issuerPaths.jwks}`;
  }

  jwks(): JSONWebKeySet {
    return { keys: [this.#key.publicJwk] };
  }

  openidConfiguration(): Record<string, unknown> {
    return {
      issuer: this.issuer,
      jwks_uri: this.jwksUrl,
      token_endpoint: this.tokenUrl,
      grant_types_supported: ['client_credentials'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      scopes_supported: [plantsWriteScope],
      id_token_signing_alg_values_supported: [signingAlgorithm],
    };
  }

  async mintAccessToken(scopes: readonly string[] = [plantsWriteScope]): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({
      client_id: this.#client.id,
      token_use: 'access',
      scope: scopes.join(' '),
      auth_time: now,
      version: 2,
    })
      .setProtectedHeader({ alg: signingAlgorithm, kid: this.#key.kid })
      .setIssuer(this.issuer)
      .setSubject(this.#client.id)
      .setIssuedAt(now)
      .setExpirationTime(now + tokenLifetimeSeconds)
      .setJti(randomUUID())
      .sign(this.#key.privateKey);
  }

  /** `POST /oauth2/token` as Cognito answers it for the client-credentials grant. */
  async tokenEndpoint(request: TokenRequest): Promise<IssuerResponse> {
    const mediaType = request.headers['content-type']?.split(';')[0]?.trim().toLowerCase();
    if (mediaType !== 'application/x-www-form-urlencoded') {
      return oauthError(400, 'invalid_request');
    }
    const form = new URLSearchParams(request.body);
    const grantType = form.get('grant_type');
    if (grantType === null) return oauthError(400, 'invalid_request');
    if (grantType !== 'client_credentials') return oauthError(400, 'unsupported_grant_type');

    const credentials = clientCredentials(request.headers.authorization, form);
    if (credentials === undefined) return oauthError(400, 'invalid_request');
    if (!this.#isClient(credentials)) return oauthError(401, 'invalid_client');

    const requested = form.get('scope')?.split(' ').filter(Boolean) ?? [];
    if (requested.some((scope) => scope !== plantsWriteScope)) {
      return oauthError(400, 'invalid_scope');
    }
    // Like Cognito: no scope asked for means every scope the client is allowed.
    const scopes = requested.length > 0 ? [...new Set(requested)] : [plantsWriteScope];
    return {
      statusCode: 200,
      headers: noStore,
      body: {
        access_token: await this.mintAccessToken(scopes),
        expires_in: tokenLifetimeSeconds,
        token_type: 'Bearer',
      },
    };
  }

  #isClient(credentials: { id: string; secret: string | undefined }): boolean {
    return (
      credentials.id === this.#client.id &&
      credentials.secret !== undefined &&
      sameSecret(credentials.secret, this.#client.secret)
    );
  }
}

const noStore = {
  'content-type': 'application/json;charset=UTF-8',
  'cache-control': 'no-store',
  pragma: 'no-cache',
} as const;

function oauthError(statusCode: 400 | 401, error: string): IssuerResponse {
  const headers: Record<string, string> = { ...noStore };
  // RFC 6749 §5.2: a 401 for client authentication names the scheme the client should use.
  if (statusCode === 401) headers['www-authenticate'] = 'Basic realm="oauth2"';
  return { statusCode, headers, body: { error } };
}

/** HTTP Basic (client_secret_basic) first, else `client_id`/`client_secret` in the form. */
function clientCredentials(
  authorization: string | undefined,
  form: URLSearchParams,
): { id: string; secret: string | undefined } | undefined {
  const basic = /^basic\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
  if (basic !== undefined) {
    const decoded = Buffer.from(basic, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) return { id: decoded, secret: undefined };
    // RFC 6749 §2.3.1: both halves are form-url-encoded before they are joined.
    return {
      id: safeDecode(decoded.slice(0, colon)),
      secret: safeDecode(decoded.slice(colon + 1)),
    };
  }
  const id = form.get('client_id');
  return id === null ? undefined : { id, secret: form.get('client_secret') ?? undefined };
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value.replaceAll('+', ' '));
  } catch {
    return value;
  }
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
