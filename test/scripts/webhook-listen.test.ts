import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  generateWebhookSecret,
  webhookSecretFile,
} from '../../dev-server/webhook/webhook-secret.ts';
import { listenOptions, secretToUse } from '../../scripts/webhook-listen.ts';
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

// The command in a process of its own, once: what only a process shows, its banner, what it prints
// and its exit. Where its secret comes from, and what it refuses, are the functions it calls.
describe('npm run webhook:listen (scripts/webhook-listen.ts)', () => {
  let data: Awaited<ReturnType<typeof tempDataDir>>;
  let listener: ScriptProcess;
  let url: string;
  let secret: string;

  beforeAll(async () => {
    data = await tempDataDir();
    listener = runScript('scripts/webhook-listen.ts', { PLANTS_DATA_DIR: data.dir }, [
      '--port',
      '0',
    ]);
    const banner = await listener.waitFor(/Ctrl-C stops it/);
    url = /at (http:\/\/127\.0\.0\.1:\d+\/),/.exec(banner)?.[1] ?? '';
    secret = (await readFile(webhookSecretFile(data.dir), 'utf8')).trim();
  });

  afterAll(async () => {
    listener?.child.kill('SIGTERM');
    await data?.remove();
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
      () => signed(secret, 'msg_changed', '{"id":1,"name":"A"}'),
      '{"id":2,"name":"A"}',
    ],
    [
      'another secret',
      () => signed(generateWebhookSecret(), 'msg_stranger', '{"id":1}'),
      undefined,
    ],
  ])('answers 400 and prints the refusal for %s', async (_case, request, body) => {
    const sent = request();
    const id = sent.headers['webhook-id'];

    const response = await fetch(url, { ...sent, body: body ?? sent.body });

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

  it('verifies with the secret npm start keeps in the data directory, created there when absent', () => {
    // Every 200 above was verified with it.
    expect(secret).toMatch(/^whsec_/);
  });

  // Last: it stops the listener the tests above use.
  it('exits 0 on SIGTERM', async () => {
    listener.child.kill('SIGTERM');

    expect(await listener.exited).toBe(0);
  });
});

describe('npm run webhook:listen, where its secret comes from and what it refuses', () => {
  it('uses PLANTS_WEBHOOK_SECRET, whatever the data directory', async () => {
    const secret = generateWebhookSecret();

    const used = await secretToUse(undefined, {
      PLANTS_WEBHOOK_SECRET: secret,
      PLANTS_DATA_DIR: 'memory',
    });

    expect(used).toBe(secret);
  });

  it('reads the secret from --secret-file, so that no argument shows it (red team I8)', async () => {
    const { dir, remove } = await tempDataDir();
    try {
      const secret = generateWebhookSecret();
      const file = join(dir, 'secret');
      await writeFile(file, `${secret}\n`, { mode: 0o600 });

      const options = listenOptions(['--secret-file', file]);
      const used =
        'secretFile' in options
          ? await secretToUse(options.secretFile, { PLANTS_DATA_DIR: 'memory' })
          : undefined;

      expect(used).toBe(secret);
    } finally {
      await remove();
    }
  });

  it.each([
    [{ PLANTS_DATA_DIR: 'memory' }, /PLANTS_DATA_DIR=memory .*PLANTS_WEBHOOK_SECRET=whsec_/],
    [{ PLANTS_WEBHOOK_SECRET: 'hunter2' }, /The secret must start with whsec_/],
  ])('refuses to start with %j, saying why', async (env, why) => {
    await expect(secretToUse(undefined, env)).rejects.toThrow(why);
  });

  it.each([
    [['--secret', 'whsec_c2VjcmV0'], /--secret is not taken: npm echoes it and `ps` shows it/],
    [['--port', 'x'], /--port must be an integer/],
  ])('refuses to start with %j, exit code 2, saying why', (args, why) => {
    expect(listenOptions(args)).toStrictEqual({ exitCode: 2, text: expect.stringMatching(why) });
  });
});
