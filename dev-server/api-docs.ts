import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseDocument } from 'yaml';

/**
 * The interactive API reference: Swagger UI (swagger-ui-dist, installed from npm, so nothing is
 * fetched from a CDN) rendering `openapi.yaml`. The local server serves it at `/docs`; `npm run docs`
 * builds the same page into one self-contained HTML file for any static host.
 */
export const docsPaths = {
  page: '/docs',
  assets: '/docs/assets/',
  spec: '/openapi.yaml',
} as const;

export const specFile = fileURLToPath(new URL('../openapi.yaml', import.meta.url));

/**
 * The only files served under `/docs/assets/`, by exact name: a request can never name a path of
 * its own (no traversal, no listing of node_modules).
 */
const assetTypes: Readonly<Record<string, string>> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

export interface DocsFile {
  readonly contentType: string;
  readonly body: Buffer;
}

/** swagger-ui-dist's own folder, found the way Node resolves the package (what `absolutePath()` returns). */
export function swaggerUiDir(): string {
  return dirname(fileURLToPath(import.meta.resolve('swagger-ui-dist/package.json')));
}

/** One of the allow-listed renderer files, or `undefined` for any other name. */
export async function readDocsAsset(name: string): Promise<DocsFile | undefined> {
  const contentType = Object.hasOwn(assetTypes, name) ? assetTypes[name] : undefined;
  if (contentType === undefined) return undefined;
  return { contentType, body: await readFile(join(swaggerUiDir(), name)) };
}

/**
 * `openapi.yaml` with its first server (the local run, `http://127.0.0.1:3000`) pointed at the
 * server that serves it, so that "Try it out" reaches this API whatever HOST and PORT are.
 * Edited as a YAML document, so comments and layout stay as written.
 */
export function specForOrigin(specText: string, origin: string): string {
  const document = parseDocument(specText);
  if (document.hasIn(['servers', 0, 'url'])) {
    document.setIn(['servers', 0, 'url'], origin);
    document.setIn(['servers', 0, 'description'], 'This local server (npm start)');
  }
  return document.toString();
}

/** What the page embeds or links; the served page links, the static build inlines. */
export type DocsPageSource =
  | {
      readonly kind: 'served';
      /**
       * A fresh development token put into the Authorize dialog, so "Try it out" just works;
       * absent when the server is reachable from other machines.
       */
      readonly devToken: string | undefined;
    }
  | {
      readonly kind: 'static';
      readonly spec: unknown;
      readonly css: string;
      readonly script: string;
    };

/** Swagger UI's options, the same for both pages except where the spec and the token come from. */
function uiOptions(source: DocsPageSource): Record<string, unknown> {
  return {
    ...(source.kind === 'served' ? { url: docsPaths.spec } : { spec: source.spec }),
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
}

export function docsPage(source: DocsPageSource): string {
  const head =
    source.kind === 'served'
      ? `<link rel="stylesheet" href="${docsPaths.assets}swagger-ui.css">\n` +
        `<link rel="icon" type="image/png" href="${docsPaths.assets}favicon-32x32.png">`
      : `<style>\n${source.css.replace(/\/\*# sourceMappingURL=[^*]*\*\/\s*$/, '')}\n</style>`;
  const script =
    source.kind === 'served'
      ? `<script src="${docsPaths.assets}swagger-ui-bundle.js"></script>`
      : `<script>\n${inlineScript(source.script)}\n</script>`;
  const devToken = source.kind === 'served' ? source.devToken : undefined;
  const note =
    devToken === undefined
      ? ''
      : '<p class="local-note">Local development server: <b>Authorize</b> holds a fresh ' +
        'development token (valid for 1 hour; reload the page for a new one, or run ' +
        '<code>npm run -s token</code>), so <b>Try it out</b> calls this API as it is.</p>';
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
      ...${scriptJson(uiOptions(source))},
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

/**
 * A script file's text made safe to inline: without its source-map comment (a static host would
 * answer the devtools' request for the map with a 404), and with any `</script` broken up.
 */
function inlineScript(text: string): string {
  return text
    .replace(/\n\/\/# sourceMappingURL=\S+\s*$/, '\n')
    .replaceAll('</script', '<\\/script');
}

/**
 * The page `npm run docs` writes: one HTML file with the renderer's CSS and script inlined and the
 * spec embedded as JSON, so it works from `file://` and on any static host, with no request for
 * anything else. No token: the spec's bearerAuth description says how to get one.
 */
export async function staticDocsPage(): Promise<string> {
  const dir = swaggerUiDir();
  const [specText, css, script] = await Promise.all([
    readFile(specFile, 'utf8'),
    readFile(join(dir, 'swagger-ui.css'), 'utf8'),
    readFile(join(dir, 'swagger-ui-bundle.js'), 'utf8'),
  ]);
  return docsPage({ kind: 'static', spec: parseDocument(specText).toJS(), css, script });
}
