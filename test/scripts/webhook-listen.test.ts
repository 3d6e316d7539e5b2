import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  generateWebhookSecret,
  webhookSecretFile,
} from '../../dev-server/webhook/webhook-secret.ts';
import { tempDataDir } from '../support/local-api-fixture.ts';
import { runScript, type ScriptProcess } from '../support/node-script.ts';

/** A request as the deliverer sends it, signed by `standardwebhooks` with `secret`. */
function signed(secret: string, id: string, body: string) {
  const now = new Date();
  return {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'webhook-signature': new Webhook(secret).sign(id, now, body),
    },
    body,
  };
}

async function listen(args: string[], env: Record<string, string> = {}) {
  const listener = runScript('scripts/webhook-listen.ts', env, ['--port', '0', ...args]);
  const banner = await listener.waitFor(/Ctrl-C stops it/);
  const url = /at (http:\/\/127\.0\.0\.1:\d+\/),/.exec(banner)?.[1] ?? '';
  return { listener, url };
}

async function stop(listener: ScriptProcess) {
  listener.child.kill('SIGTERM');
  return listener.exited;
}

describe('npm run webhook:listen (scripts/webhook-listen.ts)', () => {
  const secret = generateWebhookSecret();
  let listener: ScriptProcess;
  let url: string;

  beforeAll(async () => {
    ({ listener, url } = await listen([], { PLANTS_WEBHOOK_SECRET: secret }));
  });

  afterAll(async () => {
    if (listener) await stop(listener);
  });

  it('answers 200 to a verified event and prints it marked VERIFIED, its id, timestamp and body, marking a repeat', async () => {
    const body = '{"id":9223372036854775807,"name":"Fern"}';
    const request = signed(secret, 'msg_first', body);

    const first = await fetch(url, request);
    const again = await fetch(`${url}plant/webhook`, request);
    const printed = await listener.waitFor(/msg_first.*repeat/);

    expect([first.status, again.status]).toEqual([200, 200]);
    expect(printed).toContain(
      `VERIFIED msg_first  timestamp ${request.headers['webhook-timestamp']} (${new Date(
        Number(request.headers['webhook-timestamp']) * 1000,
      ).toISOString()})\n  ${body}\n`,
    );
  });

  it.each([
    [
      'a body changed after signing',
      signed(secret, 'msg_changed', '{"id":1,"name":"A"}'),
      '{"id":2,"name":"A"}',
    ],
    ['another secret', signed(generateWebhookSecret(), 'msg_stranger', '{"id":1}'), undefined],
  ])('answers 400 and prints the refusal for %s', async (_case, request, body) => {
    const id = request.headers['webhook-id'];

    const response = await fetch(url, { ...request, body: body ?? request.body });

    expect(response.status).toBe(400);
    expect(
      await listener.waitFor(new RegExp(`REJECTED ${id}: No matching signature found`)),
    ).toBeTruthy();
  });

  it('answers 405 to anything but POST', async () => {
    const response = await fetch(url);

    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
  });
});

describe('npm run webhook:listen, where its secret comes from', () => {
  it('uses the secret npm start keeps in the data directory, creating it when absent', async () => {
    const { dir, remove } = await tempDataDir();
    try {
      const { listener, url } = await listen([], { PLANTS_DATA_DIR: dir });
      const kept = (await readFile(webhookSecretFile(dir), 'utf8')).trim();

      const response = await fetch(url, signed(kept, 'msg_kept', '{"id":1,"name":"Kept"}'));

      expect(response.status).toBe(200);
      expect(await stop(listener)).toBe(0);
    } finally {
      await remove();
    }
  });

  it('reads the secret from --secret-file, so that no argument shows it (red team I8)', async () => {
    const { dir, remove } = await tempDataDir();
    try {
      const secret = generateWebhookSecret();
      const file = join(dir, 'secret');
      await writeFile(file, `${secret}\n`, { mode: 0o600 });
      const { listener, url } = await listen(['--secret-file', file], {
        PLANTS_DATA_DIR: 'memory',
      });

      const response = await fetch(url, signed(secret, 'msg_file', '{"id":1,"name":"Filed"}'));

      expect(response.status).toBe(200);
      expect(await stop(listener)).toBe(0);
    } finally {
      await remove();
    }
  });

  it.each([
    [[], { PLANTS_DATA_DIR: 'memory' }, /PLANTS_DATA_DIR=memory .*PLANTS_WEBHOOK_SECRET=whsec_/],
    [[], { PLANTS_WEBHOOK_SECRET: 'hunter2' }, /The secret must start with whsec_/],
    [['--secret', 'whsec_c2VjcmV0'], {}, /--secret is not taken: npm echoes it and `ps` shows it/],
    [['--port', 'x'], {}, /--port must be an integer/],
  ])('refuses to start with %j %j, saying why', async (args, env, why) => {
    const listener = runScript('scripts/webhook-listen.ts', env, args);

    expect(await listener.exited).not.toBe(0);
    expect(listener.stderr()).toMatch(why);
  });
});
