import { readFile } from 'node:fs/promises';
import { describe, it } from 'vitest';
import { deadLetterFile } from '../../../dev-server/webhook/dead-letters.ts';
import {
  generateWebhookSecret,
  webhookSecretFile,
} from '../../../dev-server/webhook/webhook-secret.ts';
import {
  clientCredentialsToken,
  startTestApi,
  tempDataDir,
} from '../../support/local-api-fixture.ts';
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
    expect(banner).toContain(
      `Signed with   the secret in ${webhookSecretFile(dir)}  (generated; npm run webhook:listen reads it)`,
    );
    expect(secret).toMatch(/^whsec_/);
    expect(banner).not.toContain(secret.slice('whsec_'.length));
    expect(banner).toContain(`Dead letters  ${deadLetterFile(dir)}  (to redrive:`);
    expect(printed).toMatch(/msg_[0-9a-f]{32} {2}timestamp \d+ \(\d{4}-\d\d-\d\dT/);
    expect(printed).not.toContain('REJECTED');
  });

  it('keeps every create acknowledged before a SIGKILL, and delivers the event of each, once started again on its data directory (a killed server is not a damaged store); its banner keeps the secret it was given off the screen', async ({
    onTestFinished,
    expect,
  }) => {
    const { serverWith, dataDir, receiverFor } = fixtures(onTestFinished);
    const dir = await dataDir();
    // Nothing is acknowledged before the kill: every event must come from what was on disk.
    let answering = false;
    const { receiver, secret, env } = await receiverFor(dir, {
      behaviour: () => (answering ? { kind: 'answer', status: 200 } : { kind: 'hang' }),
    });
    const { server, banner, create } = await serverWith(env);
    const bodyOf = (id: number) => `{"id":${id},"name":"Kept ${id}"}`;
    const sent: number[] = [];
    const stored: number[] = [];

    // Eight writers at once, so that the kill lands while creates are under way.
    const writers = Array.from({ length: 8 }, async (_, writer) => {
      for (let id = writer; ; id += 8) {
        sent.push(id);
        const answer = await create(bodyOf(id)).catch(() => undefined);
        if (answer?.status !== 200) return;
        stored.push(id);
        if (stored.length === 16) server.child.kill('SIGKILL');
      }
    });
    await Promise.all(writers);
    server.child.kill('SIGKILL');
    await server.exited;
    answering = true;
    const api = await startTestApi({ dataDir: dir, webhook: { url: receiver.url.href, secret } });

    try {
      const delivered = () => new Set(acknowledgedBodies(receiver));
      await expect
        .poll(
          () => {
            const bodies = delivered();
            return stored.every((id) => bodies.has(bodyOf(id)));
          },
          { timeout: 45_000, interval: 100 },
        )
        .toBe(true);
      const listed = await fetch(`${api.url}/plants?limit=100`, {
        headers: { authorization: `Bearer ${await clientCredentialsToken(api)}` },
      });
      const kept = (await listed.json()) as { id: number; name: string }[];

      expect(stored.length).toBeGreaterThanOrEqual(16);
      expect(kept).toEqual(expect.arrayContaining(stored.map((id) => JSON.parse(bodyOf(id)))));
      // At most the creates in flight at the kill besides: nothing that was not sent.
      expect(kept.filter(({ id }) => !sent.includes(id))).toEqual([]);
      expect([...delivered()].filter((body) => !sent.map(bodyOf).includes(body))).toEqual([]);
      expect(banner).toMatch(/Signed with\s+\(PLANTS_WEBHOOK_SECRET, not shown\)/);
      expect(banner).not.toContain(secret);
    } finally {
      await api.close();
    }
  });
});
