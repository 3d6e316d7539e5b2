import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateWebhookSecret } from '../../../dev-server/webhook/webhook-secret.ts';
import {
  deliveryDeadlineMs,
  retryDelaysSeconds,
  retryJitter,
} from '../../../functions/deliver-webhook/delivery-policy.ts';
import { createPlant, useTestApi } from '../../support/local-api-fixture.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../../support/webhook-receiver.ts';

/**
 * The deadline on its real clock, since the 15 s are the deliverer's own. Only the queue's wait
 * before the retry is scaled down: the retry schedule in real proportions is delivery.test.ts's.
 * The two cases run side by side, so the file takes one deadline.
 */
const timeScale = 0.01;

describe('the webhook against a slow receiver (npm start, real time)', () => {
  const secret = generateWebhookSecret();
  let receiver: WebhookReceiver;
  let stuckAttempts = 0;

  beforeAll(async () => {
    receiver = await startWebhookReceiver({
      secret,
      behaviour: (name) => {
        if (name === 'Slow') {
          return { kind: 'answer', status: 200, afterMs: deliveryDeadlineMs - 1_000 };
        }
        if (name === 'Stuck' && stuckAttempts++ === 0) return { kind: 'hang' };
        return { kind: 'answer', status: 200 };
      },
    });
  });
  afterAll(async () => {
    await receiver?.close();
  });
  // Started after the receiver, closed before it.
  const local = useTestApi(() => ({ webhook: { url: receiver.url.href, secret, timeScale } }));

  it('takes an answer after 14 s as delivered, and retries one that hangs past 15 s after the first wait of the schedule (within 5 s), with the same webhook-id', async () => {
    const named = (name: string) =>
      receiver.received().filter(({ body }) => body.includes(`"name":"${name}"`));
    const until = (done: () => boolean) =>
      expect.poll(done, { timeout: 30_000, interval: 20 }).toBe(true);
    const started = performance.now();

    const responses = await Promise.all([
      createPlant(local.api, local.token, '{"id":1,"name":"Slow"}'),
      createPlant(local.api, local.token, '{"id":2,"name":"Stuck"}'),
      createPlant(local.api, local.token, '{"id":3,"name":"Quick"}'),
    ]);
    await until(() => named('Quick').length === 1);
    const quickMs = performance.now() - started;
    // Past the slow answer and its first retry wait: had the answer failed it, it would be back.
    await until(() => named('Stuck')[1]?.answered === 200);

    expect(responses.map((response) => response.status)).toEqual([200, 200, 200]);
    expect(quickMs).toBeLessThan(2_000);
    const slow = named('Slow');
    expect(slow).toHaveLength(1);
    expect(slow[0]?.answered).toBe(200);
    const [hung, retried] = named('Stuck');
    expect(retried?.headers['webhook-id']).toBe(hung?.headers['webhook-id']);
    expect(hung?.answered).toBeUndefined();
    const gapMs = (retried?.receivedAt ?? 0) - (hung?.receivedAt ?? 0);
    const firstWaitMs = (retryDelaysSeconds[0] ?? 0) * 1000;
    const scaledWaitMs = firstWaitMs * timeScale;
    // The deadline runs from the attempt's start, a little before the receiver had the request.
    expect(gapMs).toBeGreaterThanOrEqual(deliveryDeadlineMs + scaledWaitMs - 250);
    expect(gapMs).toBeLessThan(deliveryDeadlineMs + scaledWaitMs * (1 + retryJitter) + 1_500);
    expect(firstWaitMs * (1 + retryJitter)).toBeLessThanOrEqual(5_000);
  });
});
