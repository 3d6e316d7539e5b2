import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { roundMs } from '../http/access-log.ts';
import { errorChain, jsonLogger, type Logger } from '../log.ts';
import { type DeliveryOutcome, deliveryMetrics } from './delivery-metrics.ts';
import { maxAttempts, retryDelaySeconds } from './delivery-policy.ts';
import { MalformedRecordError, newPlantEvent } from './new-plant-event.ts';
import { signatureHeaders } from './signature.ts';

export type WebhookRequest = {
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
};

export type DelivererDependencies = {
  /** Resolves with any status (no redirect followed); rejects on no answer by the deadline. */
  readonly send: (request: WebhookRequest) => Promise<number>;
  /** SQS ChangeMessageVisibility. */
  readonly holdBack: (receiptHandle: string, seconds: number) => Promise<void>;
  readonly signingKeys: () => Promise<readonly Buffer[]>;
  readonly service?: string;
  readonly log?: Logger;
  readonly now?: () => number;
  readonly random?: () => number;
};

/**
 * A batch is sent all at once, so a slow receiver holds up no other event. A failed one is held
 * back for the schedule's wait and listed in `batchItemFailures`, so it alone comes back.
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
