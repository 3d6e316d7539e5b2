import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { Invocation, LocalFunction } from '../function-host.ts';
import type { LocalQueue, ReceivedMessage } from './local-queue.ts';

export interface EventSourceMappingSettings {
  /** Messages per invocation at most (`BatchSize`). */
  readonly batchSize: number;
  /** Batches invoked at the same time at most, as the mapping's concurrent pollers allow. */
  readonly maxConcurrency: number;
  readonly region: string;
}

/**
 * A stand-in for Lambda's SQS event source mapping with `ReportBatchItemFailures`: it receives
 * batches from the queue (with the queue's visibility timeout) as soon as messages are visible,
 * invokes the function with the SQS event Lambda builds, and deletes the messages the function
 * did not report, as Lambda documents it:
 * - a response with no `batchItemFailures`, or an empty or null one, is a complete success;
 * - a failure whose `itemIdentifier` is missing, empty or not a message of the batch, or a response
 *   of another shape, is a complete failure; so is an invocation that throws, times out or crashes;
 * - a failed message is left alone: it comes back when its visibility timeout ends (the deliverer
 *   sets that with ChangeMessageVisibility) and goes to the DLQ after `maxReceiveCount` receives.
 * Up to `maxConcurrency` batches run at once, so one slow batch holds up no other, and each in an
 * execution environment of its own, as on Lambda: one environment runs one invocation at a time,
 * so batches never share what the function keeps across invocations (its connections).
 * Environments are started as batches need them and kept for the next ones; one that timed out or
 * crashed is replaced. Resolves once the first has loaded, so a function that cannot load fails
 * at once.
 */
export async function startEventSourceMapping(options: {
  readonly queue: LocalQueue;
  /** Starts one execution environment of the function. */
  readonly startEnvironment: () => Promise<LocalFunction<SQSEvent>>;
  readonly settings: EventSourceMappingSettings;
  readonly log: (line: string) => void;
}): Promise<{ stop(): Promise<void> }> {
  const { queue, settings, log } = options;
  const stopping = new AbortController();
  const running = new Set<Promise<void>>();
  const environments = await environmentPool(options.startEnvironment);

  const invoke = async (messages: readonly ReceivedMessage[]) => {
    const event: SQSEvent = {
      Records: messages.map((message) => sqsRecord(message, queue.arn, settings.region)),
    };
    const invocation = await environments.run(event);
    if (stopping.signal.aborted) return;
    const failed = invocation.ok ? failedMessageIds(invocation.result, messages) : 'all';
    if (failed === 'all') {
      log(
        `webhook: the deliverer's invocation failed; its ${messages.length} message(s) come back`,
      );
      return;
    }
    await Promise.all(
      messages
        .filter(({ messageId }) => !failed.has(messageId))
        .map(({ receiptHandle }) => queue.delete(receiptHandle)),
    );
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
     * Stops receiving, then the function's environments: invocations in flight end as failed, and
     * their messages come back at the next start.
     */
    async stop() {
      stopping.abort();
      await polling;
      await environments.stop();
      await Promise.allSettled(running);
    },
  };
}

/**
 * The function's execution environments, each running one invocation at a time: an invocation
 * takes a free one, or starts one when none is free. A start that fails rejects that invocation,
 * whose batch comes back, as after a failed init on Lambda.
 */
async function environmentPool(start: () => Promise<LocalFunction<SQSEvent>>): Promise<{
  run(event: SQSEvent): Promise<Invocation>;
  stop(): Promise<void>;
}> {
  const started = new Set<LocalFunction<SQSEvent>>();
  const free: LocalFunction<SQSEvent>[] = [];
  let stopped = false;
  const add = async () => {
    const environment = await start();
    started.add(environment);
    // Started while the mapping stopped: stopped at once, as the others were.
    if (stopped) await environment.stop();
    return environment;
  };
  free.push(await add());

  return {
    async run(event) {
      const environment = free.pop() ?? (await add());
      // Its worker is ending or gone: it would never answer.
      if (stopped) return { ok: false, failure: 'crashed' };
      const invocation = await environment.run(event);
      if (invocation.ok || invocation.failure === 'threw') free.push(environment);
      else {
        started.delete(environment);
        await environment.stop();
      }
      return invocation;
    },
    async stop() {
      stopped = true;
      await Promise.all([...started].map((environment) => environment.stop()));
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
    md5OfBody: message.md5OfBody,
    eventSource: 'aws:sqs',
    eventSourceARN: queueArn,
    awsRegion: region,
  };
}

/**
 * The messages a partial batch response reports, or `all` when Lambda would take it as a complete
 * failure (https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-errorhandling.html).
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
