import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  CompactSign,
  type CryptoKey,
  exportJWK,
  generateKeyPair,
  type JWK,
  type JWTPayload,
  SignJWT,
} from 'jose';

export type MintOptions = {
  readonly claims?: JWTPayload;
  /** Seconds from now; negative for an expired token; `null` for no `exp` at all. @default 300 */
  readonly expiresIn?: number | null;
  /** Seconds from now for `iat`; positive for a token issued in the future. @default 0 */
  readonly issuedAt?: number;
  readonly issuer?: string;
  readonly alg?: 'RS256' | 'ES256';
  /** Sign with a key the JWKS does not publish. */
  readonly unpublishedKey?: boolean;
  /** Protected header parameters to add or override (e.g. a made-up `kid`, a `jku`). */
  readonly header?: Readonly<Record<string, unknown>>;
};

export type TestIssuer = {
  readonly issuer: string;
  readonly jwksUrl: string;
  /** How often the JWKS was fetched: proves caching and bounded refetching. */
  readonly jwksFetches: () => number;
  mint(options?: MintOptions): Promise<string>;
  /** Sign this exact claims-set text with the published RS256 key (e.g. `"exp":1e400`, which no serializer writes). */
  signClaimsText(claims: string): Promise<string>;
  /** Publish a new signing key (rotation) and mint with it from now on. */
  rotate(): Promise<void>;
  close(): Promise<void>;
};

type SigningKey = { kid: string; alg: 'RS256' | 'ES256'; privateKey: CryptoKey; jwk: JWK };

let kids = 0;

async function signingKey(alg: 'RS256' | 'ES256'): Promise<SigningKey> {
  const { publicKey, privateKey } = await generateKeyPair(alg);
  kids += 1;
  const kid = `test-${alg}-${kids}`;
  return { kid, alg, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
}

export type TestIssuerOptions = {
  /**
   * A path the issuer URL ends with, as a Cognito pool's does (`/<region>_<pool id>`); the JWKS is
   * served below it. @default '' (the issuer is the origin)
   */
  readonly path?: string;
};

/** A token issuer of the test's own: RS256 and ES256 keys served as a JWKS on loopback. */
export async function startTestIssuer(options: TestIssuerOptions = {}): Promise<TestIssuer> {
  const issuerPath = options.path ?? '';
  const published: SigningKey[] = [await signingKey('RS256'), await signingKey('ES256')];
  const unpublished = await signingKey('RS256');
  let fetches = 0;
  const server = createServer((request, response) => {
    if (request.url !== `${issuerPath}/.well-known/jwks.json`) {
      response.writeHead(404).end();
      return;
    }
    fetches += 1;
    response.setHeader('content-type', 'application/json');
    response.end(JSON.stringify({ keys: published.map((key) => key.jwk) }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}${issuerPath}`;

  return {
    issuer,
    jwksUrl: `${issuer}/.well-known/jwks.json`,
    jwksFetches: () => fetches,
    async mint(options = {}) {
      const alg = options.alg ?? 'RS256';
      const key = options.unpublishedKey
        ? unpublished
        : published.findLast((candidate) => candidate.alg === alg);
      if (!key) throw new Error(`no ${alg} key`);
      const now = Math.floor(Date.now() / 1000);
      const token = new SignJWT({
        scope: 'plants/write',
        client_id: 'test-client',
        token_use: 'access',
        ...options.claims,
      })
        .setProtectedHeader({ alg, kid: key.kid, typ: 'JWT', ...options.header })
        .setIssuer(options.issuer ?? issuer)
        .setSubject(options.claims?.sub ?? 'test-client')
        .setIssuedAt(now + (options.issuedAt ?? 0));
      if (options.expiresIn !== null) token.setExpirationTime(now + (options.expiresIn ?? 300));
      return token.sign(key.privateKey);
    },
    async signClaimsText(claims) {
      const key = published.findLast((candidate) => candidate.alg === 'RS256');
      if (!key) throw new Error('no RS256 key');
      return new CompactSign(new TextEncoder().encode(claims))
        .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT' })
        .sign(key.privateKey);
    },
    async rotate() {
      published.push(await signingKey('RS256'));
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
