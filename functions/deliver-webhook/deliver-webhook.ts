import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { roundMs } from '../http/access-log.ts';
import { errorChain, jsonLogger, type Logger } from '../log.ts';
import { type DeliveryOutcome, deliveryMetrics } from './delivery-metrics.ts';
import { maxAttempts, retryDelaySeconds } from './delivery-policy.ts';
import { MalformedRecordError, newPlantEvent } from './new-plant-event.ts';
import { signatureHeaders } from './signature.ts';

/** One signed POST to the subscriber's URL. */
export type WebhookRequest = {
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
};

export type DelivererDependencies = {
  /**
   * Sends the request to the subscriber and resolves with the status of its answer, whatever the
   * status (a redirect is not followed) and whatever its body; rejects on a network error or when
   * no answer comes by the deadline.
   */
  readonly send: (request: WebhookRequest) => Promise<number>;
  /** Keeps the message out of sight for `seconds` (SQS ChangeMessageVisibility). */
  readonly holdBack: (receiptHandle: string, seconds: number) => Promise<void>;
  /**
   * The keys every attempt is signed with: the current one, and the previous one during a
   * rotation's overlap (`signing-keys.ts`); rejects while the secret cannot be read.
   */
  readonly signingKeys: () => Promise<readonly Buffer[]>;
  /** The `Service` dimension of the metrics. @default 'plant-store-webhook' */
  readonly service?: string;
  /** @default jsonLogger */
  readonly log?: Logger;
  /** @default Date.now */
  readonly now?: () => number;
  /** Spreads the retries (`retryDelaySeconds`). @default Math.random */
  readonly random?: () => number;
};

/**
 * The deliverer: each message of an SQS batch is one new plant's event, sent to the subscriber
 * signed, all at once so that a slow receiver holds up no other event. A 2xx acknowledges it,
 * and the event source mapping deletes the message. Anything else fails it: the message is held
 * back for the retry schedule's wait (`delivery-policy.ts`) and listed in `batchItemFailures`, so
 * that it alone comes back, until the queue moves it to its DLQ after the last attempt. One log
 * line per attempt carries its metrics: delivered, retried, dead-lettered, and the latency.
 */
export function makeHandler(dependencies: DelivererDependencies) {
  const {
    send,
    holdBack,
    signingKeys,
    service = 'plant-store-webhook',
    log = jsonLogger,
    now = Date.now,
    random = Math.random,
  } = dependencies;

  /** The message's id when it must come back, undefined when it was delivered. */
  const deliver = async (record: SQSRecord): Promise<string | undefined> => {
    const attempt = Number(record.attributes.ApproximateReceiveCount) || 1;
    const started = performance.now();
    let webhookId: string | undefined;
    let status: number | undefined;
    let failure: unknown;
    let createdAt: number | undefined;
    try {
      const event = newPlantEvent(record.body);
      ({ webhookId, createdAt } = event);
      const keys = await signingKeys();
      const timestamp = Math.floor(now() / 1000);
      status = await send({
        headers: {
          'content-type': 'application/json',
          ...signatureHeaders(keys, event.webhookId, timestamp, event.payload),
        },
        body: event.payload,
      });
    } catch (error) {
      failure = error;
    }
    const line = {
      messageId: record.messageId,
      webhookId,
      attempt,
      status,
      attemptMs: roundMs(performance.now() - started),
    };

    if (failure === undefined && status !== undefined && status >= 200 && status < 300) {
      const latencyMs =
        createdAt === undefined ? undefined : Math.max(0, Math.round(now() - createdAt));
      log('info', 'webhook delivery', {
        ...line,
        outcome: 'delivered',
        latencyMs,
        ...deliveryMetrics({ outcome: 'delivered', service, latencyMs }, now()),
      });
      return undefined;
    }

    const outcome: DeliveryOutcome = attempt >= maxAttempts ? 'dead-lettered' : 'retried';
    // A record no retry can deliver goes to the DLQ, where the alarm pages, without waiting.
    const retryInSeconds =
      failure instanceof MalformedRecordError ? 0 : retryDelaySeconds(attempt, random());
    let heldBack = true;
    try {
      await holdBack(record.receiptHandle, retryInSeconds);
    } catch (error) {
      // The message comes back after the queue's own visibility timeout instead.
      heldBack = false;
      log('warn', 'webhook retry not scheduled', { ...line, reason: errorChain(error) });
    }
    log(outcome === 'retried' ? 'warn' : 'error', 'webhook delivery', {
      ...line,
      outcome,
      reason: failure === undefined ? [`answered ${status}`] : errorChain(failure),
      ...(heldBack ? { retryInSeconds } : {}),
      ...deliveryMetrics({ outcome, service }, now()),
    });
    return record.messageId;
  };

  return async (event: SQSEvent): Promise<SQSBatchResponse> => {
    const comingBack = await Promise.all(event.Records.map(deliver));
    return {
      batchItemFailures: comingBack
        .filter((messageId) => messageId !== undefined)
        .map((itemIdentifier) => ({ itemIdentifier })),
    };
  };
}
