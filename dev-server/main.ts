// `npm start`: the Plant Store API on this machine, with local stand-ins for the AWS pieces.

import { docsPaths } from './api-docs.ts';
import { defaults, type LocalConfig, loadLocalConfig } from './config.ts';
import { issuerPaths } from './dev-issuer.ts';
import { type LocalApi, startLocalApi } from './local-api.ts';
import { webhookSecretFile } from './webhook/webhook-secret.ts';

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
  process.on(signal, async () => {
    if (stopping) {
      console.error('Stopping at once.');
      process.exit(1);
    }
    stopping = true;
    console.log(`\n${signal}: stopping (finishing requests in flight, flushing the store)...`);
    await api.close().catch((error: unknown) => {
      console.error('Could not stop cleanly:', error);
      process.exit(1);
    });
    console.log('Stopped.');
    // Let stdout drain and the process end by itself; force it only if something lingers.
    setTimeout(() => process.exit(0), 1_000).unref();
  });
}
// Printed once Ctrl-C is handled: a script that stops the server after the banner stops it cleanly.
console.log(ready);

function banner(api: LocalApi, config: LocalConfig, token: string): string {
  const { url, dataDir } = api;
  const { host, client } = config;
  const body = JSON.stringify({ id: 1, name: 'Fern', tag: 'indoor' });
  // The default secret is published (docs/local-development.md); the user's own stays off screen.
  const secret =
    client.secret === defaults.clientSecret ? client.secret : '(PLANTS_CLIENT_SECRET, not shown)';
  const exposed = api.loopbackOnly
    ? ''
    : `Warning: HOST ${host} lets other machines reach this API, and anyone who has the client ` +
      'secret can get a token from it. /docs holds no token here.\n\n';
  return `
Plant Store API (local) at ${url}
API docs (try it in the browser) at ${url}${docsPaths.page}

${exposed}Try it (the token is valid for 1 hour; \`npm run -s token\` prints a fresh one):

  curl -X POST ${url}/plants -H "Authorization: Bearer ${token}" -H 'content-type: application/json' -d '${body}'

  Data          ${dataDir ?? 'in memory (PLANTS_DATA_DIR=memory): gone when this stops'}
  Token URL     ${url}${issuerPaths.token}  (OAuth 2.0 client credentials, like Cognito)
  Client id     ${client.id}
  Client secret ${secret}
  JWKS          ${url}${issuerPaths.jwks}
${webhookLines(api, config)}
Ctrl-C stops it.
`;
}

function webhookLines({ webhook, dataDir }: LocalApi, config: LocalConfig): string {
  if (webhook === undefined || config.webhook === undefined) return '';
  // Where the secret is, never what it is: a banner ends up in scrollback, logs and screenshots.
  const secret =
    config.webhook.secret !== undefined
      ? '(PLANTS_WEBHOOK_SECRET, not shown)'
      : dataDir !== undefined
        ? `the secret in ${webhookSecretFile(dataDir)}  (generated; npm run webhook:listen reads it)`
        : 'a secret generated for this run, in memory only (for a receiver, give both a PLANTS_WEBHOOK_SECRET)';
  const deadLetters =
    webhook.deadLetterFile === undefined
      ? 'in this log only (PLANTS_DATA_DIR=memory)'
      : `${webhook.deadLetterFile}  (to redrive: move it to redrive.jsonl beside it, restart)`;
  return `
  Webhook       each new plant POSTed to ${config.webhook.url}
  Signed with   ${secret}
  Dead letters  ${deadLetters}
`;
}
