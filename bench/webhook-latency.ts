import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { text } from 'node:stream/consumers';
import { generateWebhookSecret } from '../dev-server/webhook/webhook-secret.ts';
import { projectRoot } from '../infra/bundling/bundling.ts';
import { median, percentile, round } from './lab.ts';

/** `npm run bench`'s webhook section (docs/performance.md), one create at a time. */
export async function reportWebhookLatency(options: { creates: number; outDir: string }) {
  const { creates, outDir } = options;
  const warmup = 10;
  let onEvent = (_id: number, _at: number): void => {};
  const receiver = createServer(async (req, res) => {
    const body = await text(req);
    const at = performance.now();
    res.end();
    onEvent((JSON.parse(body) as { id: number }).id, at);
  });
  receiver.listen(0, '127.0.0.1');
  await once(receiver, 'listening');
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'bench-webhook-'));
  const server = spawn(process.execPath, ['dev-server/main.ts'], {
    cwd: projectRoot,
    env: {
      PATH: process.env.PATH ?? '',
      PORT: '0',
      PLANTS_DATA_DIR: dataDir,
      PLANTS_WEBHOOK_URL: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`,
      PLANTS_WEBHOOK_SECRET: generateWebhookSecret(),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = once(server, 'close');
  const timings: { sent: number; answered: number; at: number }[] = [];
  try {
    // The banner names the URL and a token for it once the server is up.
    let banner = '';
    await new Promise<void>((resolve, reject) => {
      server.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        banner += chunk;
        if (banner.includes('Ctrl-C stops it')) resolve();
      });
      void exited.then(() => reject(new Error(`npm start exited:\n${banner}`)));
    });
    const url = /at (http:\/\/127\.0\.0\.1:\d+)/.exec(banner)?.[1];
    const token = /Authorization: Bearer ([\w.-]+)"/.exec(banner)?.[1];
    for (let id = 1; id <= warmup + creates; id++) {
      // Listening before the create: its event often arrives before its 200.
      const delivered = new Promise<number>((resolve) => {
        onEvent = (arrived, at) => arrived === id && resolve(at);
      });
      const sent = performance.now();
      const response = await fetch(`${url}/plants`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ id, name: `Bench ${id}` }),
      });
      await response.arrayBuffer();
      const answered = performance.now();
      if (response.status !== 200) throw new Error(`create ${id} answered ${response.status}`);
      const at = await delivered;
      if (id > warmup) timings.push({ sent, answered, at });
    }
  } finally {
    server.kill('SIGTERM');
    await exited;
    receiver.close();
    await rm(dataDir, { recursive: true, force: true });
  }
  const figures = (of: (timing: (typeof timings)[number]) => number) => {
    const values = timings.map(of);
    return { medianMs: round(median(values), 1), p99Ms: round(percentile(values, 99), 1) };
  };
  // From the create's 200, or its request, to its event at the receiver; the create itself.
  const latency = {
    creates,
    afterAnswer: figures(({ answered, at }) => at - answered),
    afterRequest: figures(({ sent, at }) => at - sent),
    createMs: figures(({ sent, answered }) => answered - sent),
  };
  const row = (label: string, { medianMs, p99Ms }: { medianMs: number; p99Ms: number }) =>
    `${label.padEnd(40)}${medianMs.toFixed(1).padStart(11)}${p99Ms.toFixed(1).padStart(9)}`;
  process.stdout.write(
    [
      `${'new-plant webhook, npm start'.padEnd(40)}${'median ms'.padStart(11)}${'p99 ms'.padStart(9)}`,
      row("create's 200 -> event at the receiver", latency.afterAnswer),
      row("create's request -> event", latency.afterRequest),
      row("create's request -> its 200", latency.createMs),
      `  ${creates} creates, one at a time, each after the previous one's event`,
      '',
    ].join('\n'),
  );
  const file = path.join(outDir, 'webhook-latency.json');
  const written = { generatedAt: new Date().toISOString(), node: process.version, ...latency };
  await writeFile(file, `${JSON.stringify(written, null, 2)}\n`);
}
