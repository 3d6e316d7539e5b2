import { readFile } from 'node:fs/promises';
import { describe, it } from 'vitest';
import { deadLetterFile } from '../../../dev-server/webhook/dead-letters.ts';
import {
  generateWebhookSecret,
  webhookSecretFile,
} from '../../../dev-server/webhook/webhook-secret.ts';
import { tempDataDir } from '../../support/local-api-fixture.ts';
import { npmStart, runScript, type ScriptProcess } from '../../support/node-script.ts';
import {
  startWebhookReceiver,
  type WebhookReceiver,
  type WebhookReceiverOptions,
} from '../../support/webhook-receiver.ts';

/** The deliveries the receiver answered 200. */
const acknowledged = (receiver: WebhookReceiver) =>
  receiver.received().filter(({ answered }) => answered === 200);
/** The bodies of those, each once: delivery is at least once. */
const acknowledgedBodies = (receiver: WebhookReceiver) =>
  [...new Set(acknowledged(receiver).map(({ body }) => body))].sort();

/** What a test starts, stopped once it has finished: processes, receivers, then data directories. */
function fixtures(onTestFinished: (fn: () => Promise<void>) => void) {
  const cleanups: (() => Promise<unknown>)[] = [];
  onTestFinished(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });
  const started = (process: ScriptProcess) => {
    cleanups.push(async () => {
      if (process.child.exitCode === null && process.child.signalCode === null) {
        process.child.kill('SIGTERM');
      }
      await process.exited;
    });
    return process;
  };
  return {
    started,
    /** `npmStart(env)`, stopped with the rest. */
    async serverWith(env: Readonly<Record<string, string>>) {
      const server = await npmStart(env);
      started(server.server);
      return server;
    },
    async dataDir() {
      const { dir, remove } = await tempDataDir();
      cleanups.unshift(remove);
      return dir;
    },
    /** A receiver with a secret of its own, and `npm start`'s variables for delivering to it. */
    async receiverFor(dir: string, options: Omit<WebhookReceiverOptions, 'secret'> = {}) {
      const secret = generateWebhookSecret();
      const receiver = await startWebhookReceiver({ ...options, secret });
      cleanups.push(() => receiver.close());
      const env = {
        PLANTS_DATA_DIR: dir,
        PLANTS_WEBHOOK_URL: receiver.url.href,
        PLANTS_WEBHOOK_SECRET: secret,
      };
      return { receiver, secret, env };
    },
  };
}

// Side by side: each test waits mostly on processes starting.
describe.concurrent('npm start with PLANTS_WEBHOOK_URL (dev-server/main.ts in its own process)', () => {
  it('delivers to `npm run webhook:listen`, both using the secret it generated, whose file the banner names', async ({
    onTestFinished,
    expect,
  }) => {
    const { started, dataDir, serverWith } = fixtures(onTestFinished);
    const dir = await dataDir();
    const listener = started(
      runScript('scripts/webhook-listen.ts', { PLANTS_DATA_DIR: dir }, ['--port', '0']),
    );
    const listening = await listener.waitFor(/Ctrl-C stops it/);
    const listenUrl = /PLANTS_WEBHOOK_URL=(\S+) npm start/.exec(listening)?.[1] ?? '';

    const { banner, create } = await serverWith({
      PLANTS_DATA_DIR: dir,
      PLANTS_WEBHOOK_URL: listenUrl,
    });
    const response = await create('{"id":42,"name":"Fern","tag":"indoor"}');
    const printed = await listener.waitFor(/\{"id":42,"name":"Fern","tag":"indoor"\}/);

    const secret = (await readFile(webhookSecretFile(dir), 'utf8')).trim();
    expect(response.status).toBe(200);
    expect(banner).toContain(`each new plant POSTed to ${listenUrl}`);
    expect(banner).toContain(`Signed with   the secret in ${webhookSecretFile(dir)}  (generated`);
    expect(banner).not.toContain(secret);
    expect(banner).toContain(`Dead letters  ${deadLetterFile(dir)}  (to redrive:`);
    expect(printed).toMatch(/msg_[0-9a-f]{32} {2}timestamp \d+ \(\d{4}-\d\d-\d\dT/);
    expect(printed).not.toContain('REJECTED');
  });

  it('delivers every create acknowledged before a SIGKILL of npm start, once it starts again', async ({
    onTestFinished,
    expect,
  }) => {
    const { serverWith, dataDir, receiverFor } = fixtures(onTestFinished);
    const dir = await dataDir();
    // Nothing is acknowledged before the kill: every event must come from what was on disk.
    let answering = false;
    const { receiver, env } = await receiverFor(dir, {
      behaviour: () => (answering ? { kind: 'answer', status: 200 } : { kind: 'hang' }),
    });
    const first = await serverWith(env);
    const ids = Array.from({ length: 20 }, (_, index) => 100 + index);

    const statuses = await Promise.all(
      ids.map((id) => first.create(`{"id":${id},"name":"Kept ${id}"}`).then((r) => r.status)),
    );
    first.server.child.kill('SIGKILL');
    await first.server.exited;
    answering = true;
    await serverWith(env);
    await expect
      .poll(() => acknowledgedBodies(receiver).length, { timeout: 45_000, interval: 20 })
      .toBe(ids.length);

    expect(statuses).toEqual(ids.map(() => 200));
    expect(acknowledgedBodies(receiver)).toEqual(
      ids.map((id) => `{"id":${id},"name":"Kept ${id}"}`).sort(),
    );
  });

  it('runs none of it without PLANTS_WEBHOOK_URL: the plants created meanwhile are never announced', async ({
    onTestFinished,
    expect,
  }) => {
    const { serverWith, dataDir, receiverFor } = fixtures(onTestFinished);
    const dir = await dataDir();
    const { receiver, secret, env } = await receiverFor(dir);

    const without = await serverWith({ PLANTS_DATA_DIR: dir });
    const before = await without.create('{"id":1,"name":"Unannounced"}');
    without.server.child.kill('SIGTERM');
    await without.server.exited;
    const withWebhook = await serverWith(env);
    const after = await withWebhook.create('{"id":2,"name":"Announced"}');
    await expect.poll(() => acknowledged(receiver).length, { interval: 20 }).toBe(1);

    expect([before.status, after.status]).toEqual([200, 200]);
    expect(without.banner).not.toMatch(/Webhook|Dead letters/);
    expect(withWebhook.banner).toMatch(/Signed with\s+\(PLANTS_WEBHOOK_SECRET, not shown\)/);
    expect(withWebhook.banner).not.toContain(secret);
    expect(receiver.received().map(({ body }) => body)).toEqual(['{"id":2,"name":"Announced"}']);
  });

  // Each value it refuses, and why, is test/dev-server/config.test.ts's: this is how main.ts says so.
  it('refuses to start with a PLANTS_WEBHOOK_SECRET it cannot use, saying why and not repeating it', async ({
    expect,
  }) => {
    const server = runScript('dev-server/main.ts', {
      PORT: '0',
      PLANTS_DATA_DIR: 'memory',
      PLANTS_WEBHOOK_URL: 'http://127.0.0.1:4000/',
      PLANTS_WEBHOOK_SECRET: 'hunter2-secret',
    });

    expect(await server.exited).toBe(1);
    expect(server.stderr()).toMatch(/PLANTS_WEBHOOK_SECRET must start with whsec_/);
    expect(server.stderr()).not.toContain('hunter2-secret');
  });
});
