import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sendRequest } from '../../../functions/connections/outbound-http.ts';
import {
  type DelivererDependencies,
  makeHandler,
} from '../../../functions/deliver-webhook/deliver-webhook.ts';
import { deliveryCounters } from '../../../functions/deliver-webhook/delivery-metrics.ts';
import {
  maxAttempts,
  retryDelaySeconds,
} from '../../../functions/deliver-webhook/delivery-policy.ts';
import { signingKeyOf } from '../../../functions/deliver-webhook/signature.ts';
import type { LogFields, LogLevel } from '../../../functions/log.ts';
import { extractedMetrics } from '../../support/emf.ts';
import { insertRecord, sqsEvent, sqsRecord } from '../../support/webhook-events.ts';
import {
  type ReceiverBehaviour,
  startWebhookReceiver,
  type WebhookReceiver,
} from '../../support/webhook-receiver.ts';

/**
 * The deliverer's decisions, against a real receiver on loopback over HTTP that verifies with
 * `standardwebhooks`: the request goes out through the function's own `sendRequest`, here with a
 * short deadline; the queue is a recorder of the holds. The deliverer as shipped, with its real
 * deadline, TLS and the SQS and Secrets Manager calls, is test/functions/deliver-webhook/handler.test.ts.
 */

const secret = `whsec_${randomBytes(32).toString('base64')}`;
const deadlineMs = 1000;

/** The receiver's behaviour by plant name; anything else is a 200. */
const behaviours: Record<string, ReceiverBehaviour> = {
  refused: { kind: 'answer', status: 500 },
  gone: { kind: 'answer', status: 404 },
  moved: { kind: 'redirect', status: 301, location: '/elsewhere' },
  hanging: { kind: 'hang' },
  reset: { kind: 'reset' },
  'late but in time': { kind: 'answer', status: 200, afterMs: deadlineMs / 2 },
  accepted: { kind: 'answer', status: 202 },
};

let receiver: WebhookReceiver;
let holds: { receiptHandle: string; seconds: number }[];
let lines: { level: LogLevel; message: string; fields: LogFields }[];

beforeAll(async () => {
  receiver = await startWebhookReceiver({
    secret,
    behaviour: (name) => behaviours[name ?? ''] ?? { kind: 'answer', status: 200 },
  });
});
afterAll(() => receiver.close());
beforeEach(() => {
  holds = [];
  lines = [];
});

function deliverer(overrides: Partial<DelivererDependencies> = {}) {
  return makeHandler({
    send: async ({ headers, body }) =>
      (
        await sendRequest(receiver.url, {
          method: 'POST',
          headers,
          body,
          timeoutMs: deadlineMs,
          maxResponseBytes: 1024,
        })
      ).statusCode,
    holdBack: async (receiptHandle, seconds) => {
      holds.push({ receiptHandle, seconds });
    },
    signingKeys: async () => [signingKeyOf(secret)],
    service: 'PlantStore-test-Deliverer',
    log: (level, message, fields) => lines.push({ level, message, fields }),
    random: () => 0,
    ...overrides,
  });
}

const plant = (name: string, id = '42') => insertRecord({ id, name });
const received = (webhookId: string) =>
  receiver.received().filter((each) => each.headers['webhook-id'] === webhookId);
const deliveryLines = () => lines.filter((line) => line.message === 'webhook delivery');

describe('the webhook deliverer', () => {
  it('sends the NewPlant signed, and acknowledges a 2xx by leaving it out of the failures', async () => {
    const record = insertRecord({ id: '9223372036854775807', name: 'Fern', tag: 'green' });
    const message = sqsRecord(record);

    const answer = await deliverer()(sqsEvent(message));

    expect(answer).toStrictEqual({ batchItemFailures: [] });
    const [delivery] = received(`msg_${record.eventID}`);
    expect(delivery?.verified).toBe(true);
    expect(delivery?.body).toBe('{"id":9223372036854775807,"name":"Fern","tag":"green"}');
    expect(delivery?.headers['content-type']).toBe('application/json');
    expect(Number(delivery?.headers['webhook-timestamp'])).toBeCloseTo(Date.now() / 1000, -1);
    expect(holds).toStrictEqual([]);
  });

  it.each([
    ['a 500', 'refused', false],
    ['a 404', 'gone', false],
    ['a 301, not followed', 'moved', false],
    ['no answer within the deadline', 'hanging', false],
    ['a reset connection', 'reset', false],
    ['a 200 just inside the deadline', 'late but in time', true],
    ['a 202', 'accepted', true],
  ])('after %s (%s), acknowledges it: %s', async (_case, name, acknowledged) => {
    const message = sqsRecord(plant(name));

    const answer = await deliverer()(sqsEvent(message));

    expect(answer.batchItemFailures).toStrictEqual(
      acknowledged ? [] : [{ itemIdentifier: message.messageId }],
    );
    expect(holds).toStrictEqual(
      acknowledged ? [] : [{ receiptHandle: message.receiptHandle, seconds: 2 }],
    );
    expect(receiver.received().filter((each) => each.path === '/elsewhere')).toStrictEqual([]);
  });

  it('sends one event under one webhook-id on every attempt, and another event under another', async () => {
    const first = plant('refused', '7');
    const again = plant('refused', '7');

    for (const receiveCount of [1, 2, 3]) {
      await deliverer()(sqsEvent(sqsRecord(first, { receiveCount })));
    }
    await deliverer()(sqsEvent(sqsRecord(again)));

    const attempts = received(`msg_${first.eventID}`);
    expect(attempts).toHaveLength(3);
    expect(attempts.every((each) => each.verified)).toBe(true);
    expect(new Set(attempts.map((each) => each.body)).size).toBe(1);
    expect(received(`msg_${again.eventID}`)).toHaveLength(1);
    expect(first.eventID).not.toBe(again.eventID);
  });

  it('holds each failed attempt back for the schedule of its receive count', async () => {
    const counts = Array.from({ length: maxAttempts }, (_, index) => index + 1);
    const messages = counts.map((receiveCount) =>
      sqsRecord(plant('refused'), { receiveCount, messageId: `m${receiveCount}` }),
    );

    await deliverer({ random: () => 0.5 })(sqsEvent(...messages));

    expect(holds.map(({ seconds }) => seconds)).toStrictEqual(
      counts.map((count) => retryDelaySeconds(count, 0.5)),
    );
    expect(holds.at(-1)?.seconds).toBe(0);
  });

  it('counts a failed attempt as retried, and the last as dead-lettered, in metrics and log', async () => {
    const retried = sqsRecord(plant('refused'), { receiveCount: maxAttempts - 1 });
    const last = sqsRecord(plant('refused'), { receiveCount: maxAttempts });

    await deliverer()(sqsEvent(retried, last));

    const byMessage = new Map(deliveryLines().map((line) => [line.fields.messageId, line]));
    expect(byMessage.get(retried.messageId)).toMatchObject({
      level: 'warn',
      fields: {
        outcome: 'retried',
        status: 500,
        attempt: maxAttempts - 1,
        reason: ['answered 500'],
      },
    });
    expect(byMessage.get(last.messageId)).toMatchObject({
      level: 'error',
      fields: { outcome: 'dead-lettered', attempt: maxAttempts, retryInSeconds: 0 },
    });
    const counted = deliveryLines().flatMap((line) =>
      extractedMetrics(line.fields).map(({ name, value, dimensions }) => ({
        name,
        value,
        dimensions,
      })),
    );
    expect(counted).toStrictEqual(
      expect.arrayContaining([
        {
          name: deliveryCounters.retried,
          value: 1,
          dimensions: { Service: 'PlantStore-test-Deliverer' },
        },
        {
          name: deliveryCounters['dead-lettered'],
          value: 1,
          dimensions: { Service: 'PlantStore-test-Deliverer' },
        },
      ]),
    );
  });

  it('measures the delivery latency from the item write, and logs no body or secret', async () => {
    const record = insertRecord(
      { id: '5', name: 'Secret garden' },
      { createdAt: Date.now() - 3000 },
    );

    await deliverer()(sqsEvent(sqsRecord(record)));

    const [line] = deliveryLines();
    const metrics = extractedMetrics(line?.fields ?? {});
    expect(metrics.map(({ name, unit }) => [name, unit])).toStrictEqual([
      [deliveryCounters.delivered, 'Count'],
      ['WebhookDeliveryLatency', 'Milliseconds'],
    ]);
    const latency = metrics[1]?.value as number;
    expect(latency).toBeGreaterThanOrEqual(2000);
    expect(latency).toBeLessThan(10_000);
    const text = JSON.stringify(lines);
    expect(text).not.toContain('Secret garden');
    expect(text).not.toContain(secret.slice(6, 20));
  });

  it('delivers a record without ApproximateCreationDateTime, counting no latency', async () => {
    const record = insertRecord({ id: '6', name: 'Undated' }) as {
      eventID: string;
      dynamodb: Record<string, unknown>;
    };
    delete record.dynamodb.ApproximateCreationDateTime;

    const answer = await deliverer()(sqsEvent(sqsRecord(record)));

    expect(answer).toStrictEqual({ batchItemFailures: [] });
    expect(received(`msg_${record.eventID}`).map((each) => each.verified)).toStrictEqual([true]);
    const [line] = deliveryLines();
    expect(line?.fields).toMatchObject({ outcome: 'delivered', latencyMs: undefined });
    expect(extractedMetrics(line?.fields ?? {}).map(({ name }) => name)).toStrictEqual([
      deliveryCounters.delivered,
    ]);
  });

  it('delivers the good events of a batch while one of them hangs', async () => {
    const hanging = sqsRecord(plant('hanging'));
    const good = [1, 2, 3].map((n) => insertRecord({ id: String(n), name: `Good ${n}` }));
    const started = Date.now();

    const answer = await deliverer()(sqsEvent(hanging, ...good.map((record) => sqsRecord(record))));

    expect(answer.batchItemFailures).toStrictEqual([{ itemIdentifier: hanging.messageId }]);
    for (const record of good) {
      const [delivery] = received(`msg_${record.eventID}`);
      expect(delivery?.receivedAt).toBeLessThan(started + deadlineMs / 2);
    }
  });

  it('sends a record no retry can deliver back at once, for the DLQ', async () => {
    const message = sqsRecord({ eventName: 'REMOVE', eventID: 'x' });

    const answer = await deliverer()(sqsEvent(message));

    expect(answer.batchItemFailures).toStrictEqual([{ itemIdentifier: message.messageId }]);
    expect(holds).toStrictEqual([{ receiptHandle: message.receiptHandle, seconds: 0 }]);
    expect(deliveryLines()[0]?.fields.reason).toStrictEqual([
      'MalformedRecordError: the record is not an INSERT: REMOVE',
    ]);
  });

  it('retries every event while the secret cannot be read, and sends nothing unsigned', async () => {
    const record = plant('Fern');
    const before = receiver.received().length;

    const answer = await deliverer({
      signingKeys: () => Promise.reject(new Error('Secrets Manager unavailable')),
    })(sqsEvent(sqsRecord(record)));

    expect(answer.batchItemFailures).toHaveLength(1);
    expect(receiver.received()).toHaveLength(before);
    expect(holds.map(({ seconds }) => seconds)).toStrictEqual([2]);
  });

  it('still lists a failed event when its hold cannot be set, for the queue to bring back', async () => {
    const message = sqsRecord(plant('refused'));

    const answer = await deliverer({
      holdBack: () => Promise.reject(new Error('SQS unavailable')),
    })(sqsEvent(message));

    expect(answer.batchItemFailures).toStrictEqual([{ itemIdentifier: message.messageId }]);
    expect(lines.map((line) => line.message)).toStrictEqual([
      'webhook retry not scheduled',
      'webhook delivery',
    ]);
    expect(deliveryLines()[0]?.fields).not.toHaveProperty('retryInSeconds');
  });
});
