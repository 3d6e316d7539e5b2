import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type HttpsEndpoint, startHttpsEndpoint } from '../../bench/support/https-endpoint.ts';
import type { ThrowawayCa } from '../../bench/support/throwaway-ca.ts';
import { DevIssuer, issuerPaths } from '../../dev-server/dev-issuer.ts';
import { gatewayError, writeResponse } from '../../dev-server/http-gateway.ts';
import { loadOrCreateSigningKey } from '../../dev-server/issuer-files.ts';

export type CognitoPoolOptions = {
  /** `<region>_<id>`: the last segment of the pool's `ProviderURL`. */
  readonly userPoolId: string;
  /** The client-credentials app client. */
  readonly client: { readonly id: string; readonly secret: string };
  readonly ca: ThrowawayCa;
};

export type CognitoPool = {
  /** The pool's `ProviderURL`: the tokens' `iss`, with the JWKS below it. */
  readonly providerUrl: string;
  /** The pool domain's OAuth 2.0 token endpoint. */
  readonly tokenUrl: string;
  /** How many token requests reached the endpoint. */
  tokenRequests(): number;
  close(): Promise<void>;
};

/**
 * A Cognito user pool's two public faces over TLS (trusted through the throwaway CA): its JWKS at
 * `<ProviderURL>/.well-known/jwks.json`, and its domain's `POST /oauth2/token`. Behind them is the
 * dev server's issuer, which answers the client-credentials grant as Cognito does and mints
 * Cognito-shaped access tokens for the one client, with `iss` the `ProviderURL`.
 */
export async function startCognitoPool(options: CognitoPoolOptions): Promise<CognitoPool> {
  const jwksPath = `/${options.userPoolId}${issuerPaths.jwks}`;
  let issuer: DevIssuer | undefined;
  let tokenRequests = 0;
  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    if (!issuer) return writeResponse(response, gatewayError(503));
    if (request.method === 'GET' && request.url === jwksPath) {
      response.writeHead(200, { 'content-type': 'application/json' });
      return response.end(JSON.stringify(issuer.jwks()));
    }
    if (request.method === 'POST' && request.url === issuerPaths.token) {
      tokenRequests += 1;
      const answer = await issuer.tokenEndpoint({
        contentType: request.headers['content-type'],
        authorization: request.headers.authorization,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      return writeResponse(response, answer);
    }
    writeResponse(response, gatewayError(404));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const upstream = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  const front: HttpsEndpoint = await startHttpsEndpoint(upstream, options.ca);
  const providerUrl = `${front.url.origin}/${options.userPoolId}`;
  issuer = new DevIssuer({
    issuer: providerUrl,
    key: await loadOrCreateSigningKey(undefined),
    client: options.client,
  });

  return {
    providerUrl,
    tokenUrl: `${front.url.origin}${issuerPaths.token}`,
    tokenRequests: () => tokenRequests,
    async close() {
      await front.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
