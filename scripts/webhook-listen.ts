// `npm run webhook:listen`: the secret is never an argument, which npm echoes and `ps` shows.
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { baseUrl, loadLocalConfig } from '../dev-server/config.ts';
import { readBody } from '../dev-server/http-gateway.ts';
import { closeNow } from '../dev-server/server.ts';
import {
  loadOrCreateWebhookSecret,
  webhookSecretProblem,
} from '../dev-server/webhook/webhook-secret.ts';

const usage =
  'Usage: npm run webhook:listen [-- --port N] [--host H] [--secret-file PATH]\n' +
  '  (or PLANTS_WEBHOOK_SECRET=whsec_... npm run webhook:listen)\n' +
  '  then, in another terminal: PLANTS_WEBHOOK_URL=http://127.0.0.1:4000/ npm start';

/** Bodies are one NewPlant; anything this large is no event of ours. */
const maxBodyBytes = 1024 * 1024;

/** A webhook-id seen before is marked as a repeat: delivery is at least once. */
export function listener(secret: string): Server {
  const verifier = new Webhook(secret);
  const seen = new Set<string>();
  return createServer((req, res) => {
    const answer = (status: number, body: string) => {
      res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(`${body}\n`);
    };
    if (req.method !== 'POST') {
      res.setHeader('allow', 'POST');
      return answer(405, 'POST webhooks here');
    }
    readBody(req, { limit: maxBodyBytes }).then(
      (body) => {
        if (typeof body === 'number') return answer(413, 'too large');
        const time = new Date().toTimeString().slice(0, 8);
        const id = String(req.headers['webhook-id'] ?? '(no webhook-id)');
        try {
          verifier.verify(body, req.headers as Record<string, string>, { jsonParse: false });
        } catch (error) {
          const why = error instanceof WebhookVerificationError ? error.message : String(error);
          console.log(`${time} REJECTED ${id}: ${why}`);
          return answer(400, 'bad signature');
        }
        const timestamp = Number(req.headers['webhook-timestamp']);
        const repeat = seen.has(id) ? '  (repeat: already received)' : '';
        seen.add(id);
        console.log(
          `${time} VERIFIED ${id}  timestamp ${timestamp} (${new Date(timestamp * 1000).toISOString()})${repeat}\n` +
            `  ${body.toString('utf8')}`,
        );
        answer(200, 'ok');
      },
      () => res.destroy(),
    );
  });
}

export async function secretToUse(
  file: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string> {
  const given =
    file === undefined ? env.PLANTS_WEBHOOK_SECRET?.trim() : (await readFile(file, 'utf8')).trim();
  if (given) {
    const problem = webhookSecretProblem(given);
    if (problem !== undefined) throw new Error(`The secret ${problem}`);
    return given;
  }
  const { dataDir } = loadLocalConfig(env);
  if (dataDir === undefined) {
    throw new Error(
      'With PLANTS_DATA_DIR=memory the secret lives only in the running server: give the one ' +
        '`npm start` printed as PLANTS_WEBHOOK_SECRET=whsec_..., or in a file with --secret-file',
    );
  }
  return loadOrCreateWebhookSecret(dataDir);
}

export type ListenOptions = {
  readonly port: number;
  readonly host: string;
  readonly secretFile: string | undefined;
};

/** The command line read, or what it gets instead: the text to print and the exit code. */
export function listenOptions(
  args: readonly string[],
): ListenOptions | { readonly exitCode: number; readonly text: string } {
  const { values } = parseArgs({
    args: [...args],
    options: {
      port: { type: 'string', default: '4000' },
      host: { type: 'string', default: '127.0.0.1' },
      'secret-file': { type: 'string' },
      // Read only to refuse it, with the reason.
      secret: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return { exitCode: 0, text: usage };
  if (values.secret !== undefined) {
    const text =
      '--secret is not taken: npm echoes it and `ps` shows it. Set PLANTS_WEBHOOK_SECRET, or put ' +
      `the secret in a file and pass --secret-file PATH.\n${usage}`;
    return { exitCode: 2, text };
  }
  const port = Number(values.port);
  if (!/^\d{1,5}$/.test(String(values.port)) || port > 65_535) {
    return { exitCode: 2, text: `--port must be an integer from 0 to 65535\n${usage}` };
  }
  return { port, host: values.host, secretFile: values['secret-file'] };
}

if (import.meta.main) {
  const options = listenOptions(process.argv.slice(2));
  if ('exitCode' in options) {
    (options.exitCode === 0 ? console.log : console.error)(options.text);
    process.exit(options.exitCode);
  }
  const { port, host } = options;
  let server: Server;
  try {
    server = listener(await secretToUse(options.secretFile));
    server.listen(port, host);
    await once(server, 'listening');
  } catch (error) {
    console.error(
      `Could not start the listener: ${error instanceof Error ? error.message : error}`,
    );
    process.exit(1);
  }
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => closeNow(server).then(() => process.exit(0)));
  }
  const url = `${baseUrl(host, (server.address() as AddressInfo).port)}/`;
  console.log(
    `Listening for new-plant webhooks at ${url}, verifying each signature.\n` +
      `Deliver to it with: PLANTS_WEBHOOK_URL=${url} npm start\nCtrl-C stops it.\n`,
  );
}
