import type { LevelDatabase } from 'dynalite/db/index.js';
import { makeHandler } from '../../functions/deliver-webhook/deliver-webhook.ts';
import { batchSize, maxAttempts } from '../../functions/deliver-webhook/delivery-policy.ts';
import { receiverSend } from '../../functions/deliver-webhook/receiver-send.ts';
import { signingKeyOf } from '../../functions/deliver-webhook/signature.ts';
import type { Logger } from '../../functions/log.ts';
import { webhookSettings } from '../../infra/webhook-settings.ts';
import { localAwsCredentials } from '../dynamodb.ts';
import { openDeadLetters, redrive } from './dead-letters.ts';
import { startEventSourceMapping } from './event-source-mapping.ts';
import { openLocalQueue } from './local-queue.ts';
import { attachTableStream } from './table-stream.ts';

export interface LocalWebhookOptions {
  readonly url: string;
  readonly secret: string;
  readonly timeScale?: number;
  readonly maxReceiveCount?: number;
}

export type LocalWebhook = Awaited<ReturnType<typeof startLocalWebhook>>;

/** The new-plant webhook locally (docs/decisions/0150-local-webhook-transport.md). */
export async function startLocalWebhook(options: {
  readonly level: LevelDatabase;
  readonly tableName: string;
  readonly dataDir: string | undefined;
  readonly webhook: LocalWebhookOptions;
  readonly log: (line: string) => void;
}) {
  const { level, tableName, dataDir, webhook, log } = options;
  const { region } = localAwsCredentials;
  const keys = [signingKeyOf(webhook.secret)];
  const url = new URL(webhook.url);
  const deadLetters = openDeadLetters(dataDir, log);
  const queue = await openLocalQueue(level, {
    name: 'plant-store-webhooks',
    visibilityTimeoutSeconds: webhookSettings.queueVisibilityTimeoutSeconds,
    maxReceiveCount: webhook.maxReceiveCount ?? maxAttempts,
    deadLetter: (messages) => deadLetters.add(messages),
    timeScale: webhook.timeScale,
  });
  await redrive(dataDir, queue, log);
  const stream = await attachTableStream(level, { tableName, region });

  // Once stopping, a cut-short attempt neither writes nor logs: its message comes back at start.
  let stopping = false;
  const deliveryLog: Logger = (level, message, fields) => {
    if (stopping) return;
    log(JSON.stringify({ timestamp: new Date().toISOString(), level, message, ...fields }));
  };
  const mapping = startEventSourceMapping({
    stream,
    filter: webhookSettings.pipeFilter,
    queue,
    newInstance: () => {
      const { send, agent } = receiverSend(url);
      const handler = makeHandler({
        send,
        holdBack: async (receiptHandle, seconds) => {
          if (!stopping) await queue.changeVisibility(receiptHandle, seconds);
        },
        signingKeys: async () => keys,
        service: 'deliver-webhook',
        log: deliveryLog,
      });
      return { handler, close: () => agent.destroy() };
    },
    settings: { batchSize, maxConcurrency: webhookSettings.mappingMaxConcurrency, region },
    log,
  });

  let closing: Promise<void> | undefined;
  return {
    deadLetterFile: deadLetters.file,
    /** Stream records not yet moved, and messages not yet deleted: both 0 once all is delivered. */
    backlog: async () => {
      const { visible, inFlight } = queue.counts();
      return { records: (await stream.read(1_000)).length, messages: visible + inFlight };
    },
    close: (): Promise<void> =>
      (closing ??= (async () => {
        stopping = true;
        await mapping.stop();
        stream.detach();
      })()),
  };
}
