// `npm start`: the Plant Store API on this machine, with local stand-ins for the AWS pieces.

import { docsPaths } from '../../scripts/api-docs.ts';
import { defaults, isLoopback, type LocalConfig, loadLocalConfig } from './config.ts';
import { issuerPaths } from './dev-issuer.ts';
import { type LocalApi, startLocalApi } from './local-api.ts';

let api: LocalApi;
let ready: string;
try {
  const config = loadLocalConfig();
  api = await startLocalApi(config);
  ready = banner(api, config, await api.issuer.mintAccessToken());
} catch (error) {
  // The messages of start-up errors say what to change; a stack trace would bury that.
  console.error(`Could not start the local API: ${error instanceof Error ? error.message : error}`);
  process.exit(1);
}

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) {
      console.error('Stopping at once.');
      process.exit(1);
    }
    stopping = true;
    console.log(`\n${signal}: stopping (finishing requests in flight, flushing the store)...`);
    api.close().then(
      () => {
        console.log('Stopped.');
        // Let stdout drain and the process end by itself; force it only if something lingers.
        process.exitCode = 0;
        setTimeout(() => process.exit(0), 1_000).unref();
      },
      (error: unknown) => {
        console.error('Could not stop cleanly:', error);
        process.exit(1);
      },
    );
  });
}
// Printed once Ctrl-C is handled: a script that stops the server after the banner stops it cleanly.
console.log(ready);

function banner(local: LocalApi, config: LocalConfig, token: string): string {
  const body = JSON.stringify({ id: 1, name: 'Fern', tag: 'indoor' });
  const data = local.dataDir ?? 'in memory (PLANTS_DATA_DIR=memory): gone when this stops';
  // The default secret is published in the README; a secret of the user's own stays off the screen.
  const secret =
    config.client.secret === defaults.clientSecret
      ? config.client.secret
      : '(PLANTS_CLIENT_SECRET, not shown)';
  const exposed = isLoopback(config.host)
    ? []
    : [
        `Warning: HOST ${config.host} lets other machines reach this API, and anyone who has the ` +
          'client secret can get a token from it. /docs holds no token here.',
        '',
      ];
  return [
    '',
    `Plant Store API (local) at ${local.url}`,
    `API docs (try it in the browser) at ${local.url}${docsPaths.page}`,
    '',
    ...exposed,
    'Try it (the token is valid for 1 hour; `npm run -s token` prints a fresh one):',
    '',
    `  curl -X POST ${local.url}/plants -H "Authorization: Bearer ${token}" -H 'content-type: application/json' -d '${body}'`,
    '',
    `  Data          ${data}`,
    `  Token URL     ${local.url}${issuerPaths.token}  (OAuth 2.0 client credentials, like Cognito)`,
    `  Client id     ${config.client.id}`,
    `  Client secret ${secret}`,
    `  JWKS          ${local.url}${issuerPaths.jwks}`,
    '',
    'Ctrl-C stops it.',
    '',
  ].join('\n');
}
