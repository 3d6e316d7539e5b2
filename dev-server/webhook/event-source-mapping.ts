import { createHash } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { LocalQueue, ReceivedMessage } from './local-queue.ts';
import { type EventPattern, matchesPattern } from './pipe.ts';
import type { TableStream } from './table-stream.ts';

interface FunctionInstance {
  readonly handler: (event: SQSEvent) => Promise<SQSBatchResponse>;
  close(): void;
}

/** The pipe and the SQS event source mapping as one loop (decision 0147: no shared connections). */
export function startEventSourceMapping(options: {
  readonly stream: TableStream;
  readonly filter: EventPattern;
  readonly queue: LocalQueue;
  readonly newInstance: () => FunctionInstance;
  readonly settings: { batchSize: number; maxConcurrency: number; region: string };
  readonly log: (line: string) => void;
}): { stop(): Promise<void> } {
  const { stream, filter, queue, newInstance, settings, log } = options;
  const arn = `arn:aws:sqs:${settings.region}:000000000000:${queue.name}`;
  let stopping = false;
  let wake = Promise.withResolvers<void>();
  const nudge = () => {
    wake.resolve();
    wake = Promise.withResolvers<void>();
  };
  stream.onRecords(nudge);
  queue.onChange(nudge);
  const running = new Set<Promise<void>>();
  const instances: FunctionInstance[] = [];
  const free: FunctionInstance[] = [];

  const invoke = async (messages: readonly ReceivedMessage[]) => {
    const instance = free.pop() ?? newInstance();
    if (!instances.includes(instance)) instances.push(instance);
    try {
      const Records = messages.map((message) => sqsRecord(message, arn, settings.region));
      const { batchItemFailures } = await instance.handler({ Records });
      if (stopping) return;
      const failed = new Set(batchItemFailures.map(({ itemIdentifier }) => itemIdentifier));
      const done = messages.filter(({ messageId }) => !failed.has(messageId));
      await Promise.all(done.map(({ receiptHandle }) => queue.delete(receiptHandle)));
    } catch (error) {
      if (!stopping) log(`webhook: a batch failed (${String(error)}); its messages come back`);
    } finally {
      free.push(instance);
    }
  };

  const step = async (): Promise<boolean> => {
    const records = await stream.read(settings.batchSize);
    if (records.length > 0) {
      const kept = records.filter(({ record }) => matchesPattern(filter, record));
      const bodies = kept.map(({ record }) => JSON.stringify(record));
      await queue.send(bodies, stream.trimOperations(records));
      return true;
    }
    if (running.size >= settings.maxConcurrency) return false;
    const messages = await queue.receive(settings.batchSize);
    if (messages.length === 0) return false;
    const batch: Promise<void> = invoke(messages).finally(() => {
      running.delete(batch);
      nudge();
    });
    running.add(batch);
    return true;
  };

  const looping = (async () => {
    while (!stopping) {
      const woken = wake.promise;
      try {
        if (await step()) continue;
      } catch (error) {
        if (stopping) break;
        log(`webhook: could not move or receive events, retrying: ${String(error)}`);
        await delay(1_000);
        continue;
      }
      // With every batch running, only the end of one lets another start.
      const next = running.size >= settings.maxConcurrency ? Infinity : queue.nextVisibleAt();
      const timer = Number.isFinite(next)
        ? setTimeout(nudge, Math.max(0, next - Date.now()))
        : undefined;
      await woken;
      clearTimeout(timer);
    }
  })();

  return {
    /** Batches in flight fail and delete nothing: their messages come back at the next start. */
    async stop() {
      stopping = true;
      nudge();
      await looping;
      for (const instance of instances.splice(0)) instance.close();
      await Promise.allSettled(running);
    },
  };
}

function sqsRecord(message: ReceivedMessage, queueArn: string, region: string): SQSRecord {
  return {
    messageId: message.messageId,
    receiptHandle: message.receiptHandle,
    body: message.body,
    attributes: {
      ApproximateReceiveCount: String(message.receiveCount),
      SentTimestamp: String(message.sentTimestamp),
      SenderId: 'AROAEXAMPLELOCALPIPE:pipe',
      ApproximateFirstReceiveTimestamp: String(message.firstReceiveTimestamp),
    },
    messageAttributes: {},
    md5OfBody: createHash('md5').update(message.body).digest('hex'),
    eventSource: 'aws:sqs',
    eventSourceARN: queueArn,
    awsRegion: region,
  };
}
