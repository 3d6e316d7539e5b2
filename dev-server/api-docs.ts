import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseDocument } from 'yaml';
import type { DevIssuer } from './dev-issuer.ts';
import type { GatewayResponse } from './http-gateway.ts';

/** Swagger UI from npm (no CDN) rendering `openapi.yaml`: served at `/docs`, or built to a file. */
export const docsPaths = { page: '/docs', assets: '/docs/assets/', spec: '/openapi.yaml' } as const;

const specFile = fileURLToPath(new URL('../openapi.yaml', import.meta.url));
const swaggerUiDir = () =>
  dirname(fileURLToPath(import.meta.resolve('swagger-ui-dist/package.json')));

/** The only files served under `/docs/assets/`, by exact name: a request never names a path. */
const assetTypes: Readonly<Record<string, string>> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

/** The browser itself refuses any request of the page to another origin. */
const sameOriginOnly =
  "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; " +
  "img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'";

/** `/docs`, its files and `/openapi.yaml` (first server: this one), else `undefined`. */
export async function docsResponse(
  path: string,
  issuer: DevIssuer,
  devToken: boolean,
): Promise<GatewayResponse | undefined> {
  if (path === docsPaths.page || path === `${docsPaths.page}/`) {
    const page = docsPage({ devToken: devToken ? await issuer.mintAccessToken() : undefined });
    return ok('text/html; charset=utf-8', page, { 'content-security-policy': sameOriginOnly });
  }
  if (path === docsPaths.spec) {
    // Edited as a YAML document, so comments and layout stay as written.
    const spec = parseDocument(await readFile(specFile, 'utf8'));
    if (spec.hasIn(['servers', 0, 'url'])) {
      spec.setIn(['servers', 0, 'url'], issuer.issuer);
      spec.setIn(['servers', 0, 'description'], 'This local server (npm start)');
    }
    return ok('application/yaml; charset=utf-8', spec.toString());
  }
  const name = path.startsWith(docsPaths.assets) ? path.slice(docsPaths.assets.length) : '';
  if (!Object.hasOwn(assetTypes, name)) return undefined;
  return ok(assetTypes[name] as string, await readFile(join(swaggerUiDir(), name)));
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

/** The page `npm run docs` writes, everything inlined so it works from any static host or disk. */
export async function staticDocsPage(): Promise<string> {
  const dir = swaggerUiDir();
  const [specText, css, script] = await Promise.all([
    readFile(specFile, 'utf8'),
    readFile(join(dir, 'swagger-ui.css'), 'utf8'),
    readFile(join(dir, 'swagger-ui-bundle.js'), 'utf8'),
  ]);
  return docsPage({ inline: { spec: parseDocument(specText).toJS(), css, script } });
}

type PageSource = { devToken?: string; inline?: { spec: unknown; css: string; script: string } };

function docsPage({ devToken, inline }: PageSource): string {
  const head = inline
    ? `<style>\n${inline.css.replace(/\/\*# sourceMappingURL=[^*]*\*\/\s*$/, '')}\n</style>`
    : `<link rel="stylesheet" href="${docsPaths.assets}swagger-ui.css">\n` +
      `<link rel="icon" type="image/png" href="${docsPaths.assets}favicon-32x32.png">`;
  // Without the source-map comment (a static host would answer the devtools' request with a 404).
  const inlined = inline?.script
    .replace(/\n\/\/# sourceMappingURL=\S+\s*$/, '\n')
    .replaceAll('</script', '<\\/script');
  const script = inline
    ? `<script>\n${inlined}\n</script>`
    : `<script src="${docsPaths.assets}swagger-ui-bundle.js"></script>`;
  const note =
    devToken === undefined
      ? ''
      : '<p class="local-note">Local development server: <b>Authorize</b> holds a fresh ' +
        'development token (valid for 1 hour; reload the page for a new one, or run ' +
        '<code>npm run -s token</code>), so <b>Try it out</b> calls this API as it is.</p>';
  const options = {
    ...(inline ? { spec: inline.spec } : { url: docsPaths.spec }),
    dom_id: '#swagger-ui',
    deepLinking: true,
    // Swagger UI's default validator badge calls validator.swagger.io: never leave the machine.
    validatorUrl: null,
    persistAuthorization: true,
    tryItOutEnabled: true,
    displayRequestDuration: true,
    defaultModelsExpandDepth: 2,
    defaultModelExpandDepth: 2,
  };
  const preauthorize =
    devToken === undefined
      ? ''
      : `\n      onComplete: () => ui.preauthorizeApiKey('bearerAuth', ${scriptJson(devToken)}),`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Plant Store API reference</title>
${head}
<style>
  body { margin: 0; }
  .local-note { margin: 0; padding: 8px 20px; font: 14px sans-serif; background: #fff8e1; border-bottom: 1px solid #f0d98c; }
</style>
</head>
<body>
${note}
<div id="swagger-ui"></div>
${script}
<script>
  const ui = SwaggerUIBundle({
      ...${scriptJson(options)},
      presets: [SwaggerUIBundle.presets.apis],
      layout: 'BaseLayout',${preauthorize}
  });
</script>
</body>
</html>
`;
}

/** JSON that is safe inside a `<script>` element: no `</script>` or `<!--` can end it early. */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replaceAll('<', '\\u003c')
    .replaceAll('\u2028', '\\u2028')
    .replaceAll('\u2029', '\\u2029');
}
