import { createHash } from 'node:crypto';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { LocalQueue, ReceivedMessage } from './local-queue.ts';

/** One instance of the function, as one Lambda execution environment holds it. */
export interface FunctionInstance {
  readonly handler: (event: SQSEvent) => Promise<unknown>;
  /** Ends what it keeps open (its connections), requests in flight included. */
  close(): void;
}

export interface EventSourceMappingSettings {
  /** Messages per invocation at most (`BatchSize`). */
  readonly batchSize: number;
  /** Batches invoked at the same time at most (`MaximumConcurrency`). */
  readonly maxConcurrency: number;
  readonly region: string;
}

/**
 * Lambda's SQS event source mapping with `ReportBatchItemFailures`, in this process: it receives
 * batches as soon as messages are visible, invokes the function with the SQS event Lambda builds,
 * and deletes the messages the function did not report (`failedMessageIds`); a failed message
 * comes back when its visibility ends, as the deliverer set it. Up to `maxConcurrency` batches run
 * at once, so that a slow one holds up no other, each in an instance of the function of its own,
 * running one batch at a time, as each Lambda environment runs one invocation: batches never share
 * an instance's connections (docs/decisions/0147-local-deliverer-environment-per-batch.md).
 * Instances are made as batches need them and kept for the next ones.
 */
export function startEventSourceMapping(options: {
  readonly queue: LocalQueue;
  readonly newInstance: () => FunctionInstance;
  readonly settings: EventSourceMappingSettings;
  readonly log: (line: string) => void;
}): { stop(): Promise<void> } {
  const { queue, newInstance, settings, log } = options;
  const arn = `arn:aws:sqs:${settings.region}:000000000000:${queue.name}`;
  const stopping = new AbortController();
  const running = new Set<Promise<void>>();
  const instances: FunctionInstance[] = [];
  const free: FunctionInstance[] = [];

  const invoke = async (messages: readonly ReceivedMessage[]) => {
    const Records = messages.map((message) => sqsRecord(message, arn, settings.region));
    let instance = free.pop();
    if (instance === undefined) {
      instance = newInstance();
      instances.push(instance);
    }
    let failed: Set<string> | 'all';
    let reason = 'an answer Lambda takes as a complete failure';
    try {
      failed = failedMessageIds(await instance.handler({ Records }), messages);
    } catch (error) {
      // A throw fails the whole batch, as on Lambda.
      failed = 'all';
      reason = String(error);
    } finally {
      free.push(instance);
    }
    if (stopping.signal.aborted) return;
    if (failed === 'all') {
      log(`webhook: the deliverer's invocation failed (${reason}); its messages come back`);
      return;
    }
    const done = messages.filter(({ messageId }) => !failed.has(messageId));
    await Promise.all(done.map(({ receiptHandle }) => queue.delete(receiptHandle)));
  };

  const poll = async () => {
    while (!stopping.signal.aborted) {
      if (running.size >= settings.maxConcurrency) {
        await Promise.race(running);
        continue;
      }
      let messages: ReceivedMessage[];
      try {
        messages = await queue.receive(settings.batchSize);
      } catch (error) {
        if (stopping.signal.aborted) break;
        log(`webhook: could not receive from the queue, retrying: ${String(error)}`);
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        continue;
      }
      if (messages.length === 0) {
        await queue.whenReceivable(stopping.signal);
        continue;
      }
      const batch: Promise<void> = invoke(messages)
        .catch((error: unknown) => log(`webhook: could not complete a batch: ${String(error)}`))
        .finally(() => running.delete(batch));
      running.add(batch);
    }
  };
  const polling = poll();

  return {
    /**
     * Stops receiving and closes the instances: batches in flight fail, nothing of theirs is
     * deleted, and their messages come back at the next start.
     */
    async stop() {
      stopping.abort();
      await polling;
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

/**
 * The messages a partial batch response reports, or `all` when Lambda would take it as a complete
 * failure (https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-errorhandling.html): no
 * `batchItemFailures`, or an empty or null one, is a complete success; a failure naming no message
 * of the batch, or a response of another shape, a complete failure.
 */
export function failedMessageIds(
  response: unknown,
  batch: readonly { readonly messageId: string }[],
): Set<string> | 'all' {
  if (response === undefined || response === null) return new Set();
  if (typeof response !== 'object' || Array.isArray(response)) return 'all';
  const failures = (response as Partial<SQSBatchResponse>).batchItemFailures;
  if (failures === undefined || failures === null) return new Set();
  if (!Array.isArray(failures)) return 'all';
  const ids = new Set(batch.map(({ messageId }) => messageId));
  const failed = new Set<string>();
  for (const failure of failures as unknown[]) {
    const id = (failure as { itemIdentifier?: unknown } | null)?.itemIdentifier;
    if (typeof id !== 'string' || !ids.has(id)) return 'all';
    failed.add(id);
  }
  return failed;
}
