// `npm start`: the Plant Store API on this machine, with local stand-ins for the AWS pieces.

import { docsPaths } from './api-docs.ts';
import { loadLocalConfig } from './config.ts';
import { issuerPaths } from './dev-issuer.ts';
import { type LocalApi, startLocalApi } from './local-api.ts';

let api: LocalApi;
try {
  const config = loadLocalConfig();
  api = await startLocalApi(config);
  console.log(banner(api, config.client, await api.issuer.mintAccessToken()));
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

function banner(local: LocalApi, client: { id: string; secret: string }, token: string): string {
  const body = JSON.stringify({ id: 1, name: 'Fern', tag: 'indoor' });
  const data = local.dataDir ?? 'in memory (PLANTS_DATA_DIR=memory): gone when this stops';
  return [
    '',
    `Plant Store API (local) at ${local.url}`,
    `API docs (try it in the browser) at ${local.url}${docsPaths.page}`,
    '',
    'Try it (the token is valid for 1 hour; `npm run -s token` prints a fresh one):',
    '',
    `  curl -X POST ${local.url}/plants -H "Authorization: Bearer ${token}" -H 'content-type: application/json' -d '${body}'`,
    '',
    `  Data          ${data}`,
    `  Token URL     ${local.url}${issuerPaths.token}  (OAuth 2.0 client credentials, like Cognito)`,
    `  Client id     ${client.id}`,
    `  Client secret ${client.secret}`,
    `  JWKS          ${local.url}${issuerPaths.jwks}`,
    '',
    'Ctrl-C stops it.',
    '',
  ].join('\n');
}
