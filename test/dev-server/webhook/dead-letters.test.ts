import { readFile, rename, stat } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import type { LocalApi } from '../../../dev-server/local-api.ts';
import { deadLetterFile, redriveFile } from '../../../dev-server/webhook/dead-letters.ts';
import { generateWebhookSecret } from '../../../dev-server/webhook/webhook-secret.ts';
import {
  clientCredentialsToken,
  createPlant,
  startTestApi,
  tempDataDir,
} from '../../support/local-api-fixture.ts';
import { startWebhookReceiver } from '../../support/webhook-receiver.ts';

/** The file's lines, none when it is absent. */
const linesOf = (file: string) =>
  readFile(file, 'utf8').then(
    (text) => text.split('\n').filter((line) => line !== ''),
    () => [],
  );

describe('the dead letters of npm start with a data directory (docs/local-development.md#webhooks-locally)', () => {
  it('are appended to a file that outlives the server, and sent again, under the same webhook-id, when moved to redrive.jsonl before a start', async ({
    onTestFinished,
  }) => {
    const { dir, remove } = await tempDataDir();
    onTestFinished(remove);
    const secret = generateWebhookSecret();
    let refusing = true;
    const receiver = await startWebhookReceiver({
      secret,
      behaviour: () => ({ kind: 'answer', status: refusing ? 500 : 200 }),
    });
    onTestFinished(() => receiver.close());
    const logLines: string[] = [];
    const start = async () => {
      const api = await startTestApi({
        dataDir: dir,
        log: (line) => logLines.push(line),
        webhook: { url: receiver.url.href, secret, timeScale: 1e-5, maxReceiveCount: 2 },
      });
      onTestFinished(() => api.close());
      return api;
    };
    const idle = (api: LocalApi) => api.webhook?.backlog();

    const first = await start();
    const created = await createPlant(
      first,
      await clientCredentialsToken(first),
      '{"id":7,"name":"Lost","tag":"indoor"}',
    );
    await expect.poll(() => linesOf(deadLetterFile(dir)), { timeout: 20_000 }).toHaveLength(1);
    await first.close();
    // A restart alone sends nothing again.
    const second = await start();
    const afterRestart = await idle(second);
    await second.close();
    const [line = ''] = await linesOf(deadLetterFile(dir));
    const { mode } = await stat(deadLetterFile(dir));
    const attempts = receiver.received().length;

    refusing = false;
    await rename(deadLetterFile(dir), redriveFile(dir));
    const third = await start();
    await expect.poll(() => receiver.received().at(-1)?.answered, { timeout: 20_000 }).toBe(200);
    await expect
      .poll(() => idle(third), { timeout: 20_000 })
      .toStrictEqual({ records: 0, messages: 0 });

    const record = JSON.parse(line) as { eventID: string };
    const [firstAttempt] = receiver.received();
    expect(created.status).toBe(200);
    expect(first.webhook?.deadLetterFile).toBe(deadLetterFile(dir));
    expect(record).toMatchObject({
      eventName: 'INSERT',
      dynamodb: { NewImage: { id: { N: '7' }, name: { S: 'Lost' }, tag: { S: 'indoor' } } },
    });
    expect(mode & 0o777).toBe(0o600);
    expect(logLines).toContain(
      `webhook: msg_${record.eventID} failed 2 attempts; dead letter in ${deadLetterFile(dir)}`,
    );
    expect(afterRestart).toStrictEqual({ records: 0, messages: 0 });
    expect(attempts).toBe(2);
    expect(receiver.received().map(({ headers }) => headers['webhook-id'])).toEqual([
      `msg_${record.eventID}`,
      `msg_${record.eventID}`,
      `msg_${record.eventID}`,
    ]);
    expect(receiver.received().at(-1)?.body).toBe(firstAttempt?.body);
    expect(logLines).toContain(
      `webhook: 1 event(s) from ${redriveFile(dir)} sent to the queue again`,
    );
    expect(await linesOf(redriveFile(dir))).toEqual([]);
    expect(await linesOf(deadLetterFile(dir))).toEqual([]);
  });
});
