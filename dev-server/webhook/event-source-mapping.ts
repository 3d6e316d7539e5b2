import { createHash } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { LocalQueue, ReceivedMessage } from './local-queue.ts';
import { type EventPattern, matchesPattern } from './pipe.ts';
import type { TableStream } from './table-stream.ts';

/** One instance of the function, as one Lambda execution environment holds it. */
export interface FunctionInstance {
  readonly handler: (event: SQSEvent) => Promise<SQSBatchResponse>;
  /** Ends what it keeps open (its connections), requests in flight included. */
  close(): void;
}

export interface EventSourceMappingSettings {
  /** Records moved and messages received at a time at most (`BatchSize`). */
  readonly batchSize: number;
  /** Batches invoked at the same time at most (`MaximumConcurrency`). */
  readonly maxConcurrency: number;
  readonly region: string;
}

/**
 * The EventBridge pipe and Lambda's SQS event source mapping, as one loop in this process. The
 * pipe's step moves the stream's records that `filter` keeps to the queue, one message each, in
 * the same write as the trim of every record read, so a record is moved once even across a crash
 * (Pipes: at least once). The mapping's step receives a batch as soon as messages are visible,
 * invokes the function with the SQS event Lambda builds, and deletes the messages it did not
 * report in `batchItemFailures` (a throw fails them all); a failed message comes back when its
 * visibility ends, as the deliverer set it. Up to `maxConcurrency` batches run at once, so that a
 * slow one holds up no other, each in an instance of the function of its own, made when none is
 * free and kept: batches never share an instance's connections, as each Lambda environment runs
 * one invocation at a time (docs/decisions/0147-local-deliverer-environment-per-batch.md).
 * Between steps it sleeps until there are records, a batch ends, or a message may be received.
 */
export function startEventSourceMapping(options: {
  readonly stream: TableStream;
  readonly filter: EventPattern;
  readonly queue: LocalQueue;
  readonly newInstance: () => FunctionInstance;
  readonly settings: EventSourceMappingSettings;
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
    let instance = free.pop();
    if (instance === undefined) {
      instance = newInstance();
      instances.push(instance);
    }
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

  /** One step of the pipe or of the mapping; false when neither had anything to do. */
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

  const loop = async () => {
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
  };
  const looping = loop();

  return {
    /**
     * Stops the loop and closes the instances: batches in flight fail, nothing of theirs is
     * deleted, and their messages come back at the next start.
     */
    async stop() {
      stopping = true;
      nudge();
      await looping;
      for (const instance of instances.splice(0)) instance.close();
      await Promise.allSettled(running);
    },
  };
}

/** The SQS event's record for one message, as Lambda builds it. */
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
