import { readFile } from 'node:fs/promises';
import { docsPage, docsPaths, readDocsAsset, specFile, specForOrigin } from './api-docs.ts';
import type { DevIssuer } from './dev-issuer.ts';
import type { GatewayResponse } from './http-gateway.ts';

/** The browser itself refuses any request of the page to another origin. */
const sameOriginOnly =
  "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; " +
  "img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'";

/**
 * The API reference (`GET /docs`, its renderer's files, `/openapi.yaml` pointed at this server), or
 * `undefined` for any other path. A convenience of the local server only, not routes of the HTTP
 * API: on AWS the reference is the static page `npm run docs` builds. `devToken` says whether the
 * page may hold a fresh token, which only a server other machines cannot reach may hand out.
 */
export async function docsResponse(
  path: string,
  issuer: DevIssuer,
  devToken: boolean,
): Promise<GatewayResponse | undefined> {
  if (path === docsPaths.page || path === `${docsPaths.page}/`) {
    const page = docsPage({
      kind: 'served',
      devToken: devToken ? await issuer.mintAccessToken() : undefined,
    });
    return ok('text/html; charset=utf-8', page, { 'content-security-policy': sameOriginOnly });
  }
  if (path === docsPaths.spec) {
    const spec = specForOrigin(await readFile(specFile, 'utf8'), issuer.issuer);
    return ok('application/yaml; charset=utf-8', spec);
  }
  if (!path.startsWith(docsPaths.assets)) return undefined;
  const asset = await readDocsAsset(path.slice(docsPaths.assets.length));
  return asset && ok(asset.contentType, asset.body);
}

function ok(type: string, body: string | Buffer, headers = {}): GatewayResponse {
  return {
    statusCode: 200,
    headers: {
      'content-type': type,
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      ...headers,
    },
    body: Buffer.from(body),
  };
}
