import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateWebhookSecret } from '../../../dev-server/webhook/webhook-secret.ts';
import {
  batchSize,
  deliveryDeadlineMs,
  retryDelaysSeconds,
  retryJitter,
} from '../../../functions/deliver-webhook/delivery-policy.ts';
import { webhookSettings } from '../../../infra/webhook-settings.ts';
import { createPlant, useTestApi } from '../../support/local-api-fixture.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../../support/webhook-receiver.ts';

/**
 * The deadline on its real clock, since the 15 s are the deliverer's own. Only the queue's wait
 * before the retry is scaled down: the retry schedule in real proportions is delivery.test.ts's.
 * The cases run side by side, so the file takes one deadline.
 */
const timeScale = 0.01;

/** `count` plant names: `prefix 1`, `prefix 2`, ... */
const namesOf = (prefix: string, count: number) =>
  Array.from({ length: count }, (_, index) => `${prefix} ${index + 1}`);

/**
 * Events answered after a second, as many as the mapping runs batches at once: while they hold
 * every batch, the slow events pile up in the queue and are then received as full batches.
 */
const briefNames = namesOf('Brief', webhookSettings.mappingMaxConcurrency);
const briefMs = 1_000;

/**
 * Events answered just within the deadline, two full batches of them at once: each is delivered
 * once only if each batch has connections of its own, as it has on Lambda, where one execution
 * environment runs one invocation at a time.
 */
const slowNames = namesOf('Slow', 2 * batchSize);

describe('the webhook against a slow receiver (npm start, real time)', () => {
  const secret = generateWebhookSecret();
  let receiver: WebhookReceiver;
  let stuckAttempts = 0;

  beforeAll(async () => {
    receiver = await startWebhookReceiver({
      secret,
      behaviour: (name) => {
        if (name?.startsWith('Slow')) {
          return { kind: 'answer', status: 200, afterMs: deliveryDeadlineMs - 1_000 };
        }
        if (name?.startsWith('Brief')) return { kind: 'answer', status: 200, afterMs: briefMs };
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

  it('takes answers after 14 s as delivered, once each, even more of them than a batch holds, and retries one that hangs past 15 s after the first wait of the schedule (within 5 s), with the same webhook-id', async () => {
    const named = (name: string) =>
      receiver.received().filter(({ body }) => body.includes(`"name":"${name}"`));
    const until = (done: () => boolean) =>
      expect.poll(done, { timeout: 30_000, interval: 20 }).toBe(true);

    let id = 0;
    const create = (names: readonly string[]) =>
      Promise.all(
        names.map((name) =>
          createPlant(local.api, local.token, JSON.stringify({ id: ++id, name })),
        ),
      );

    const responses = [
      ...(await create(['Stuck', 'Quick', ...briefNames])),
      ...(await create(slowNames)),
    ];
    await until(() => named('Quick').length === 1);
    // No head-of-line blocking, by order rather than by the clock: Quick arrives while every
    // slow event is still unanswered and Stuck's first attempt still hangs.
    const answeredBeforeQuick = receiver.received().filter(({ answered }) => answered === 200);
    expect(answeredBeforeQuick.filter(({ body }) => /"name":"(?:Slow|Stuck)/.test(body))).toEqual(
      [],
    );
    // Past the slow answers and their first retry wait: had the answer failed one, it would be back.
    await until(() => named('Stuck')[1]?.answered === 200);
    await until(() => slowNames.every((name) => named(name).some(({ answered }) => answered)));

    expect(responses.map((response) => response.status)).toEqual(responses.map(() => 200));
    const slow = slowNames.map((name) => named(name).map(({ answered }) => answered));
    expect(slow).toEqual(slowNames.map(() => [200]));
    const [hung, retried] = named('Stuck');
    expect(retried?.headers['webhook-id']).toBe(hung?.headers['webhook-id']);
    expect(hung?.answered).toBeUndefined();
    const gapMs = (retried?.receivedAt ?? 0) - (hung?.receivedAt ?? 0);
    const firstWaitMs = (retryDelaysSeconds[0] ?? 0) * 1000;
    const scaledWaitMs = firstWaitMs * timeScale;
    // The deadline runs from the attempt's start, before the receiver had the request: on a busy
    // machine the request can take most of a second to arrive. The retry is the second attempt
    // (counted above); the upper bound only rules out a wait as long as the schedule's second
    // one would be unscaled, with the margin a machine running two suites at once needs.
    expect(gapMs).toBeGreaterThanOrEqual(deliveryDeadlineMs + scaledWaitMs - 1_000);
    expect(gapMs).toBeLessThan(deliveryDeadlineMs + (retryDelaysSeconds[1] ?? 0) * 1000);
    expect(firstWaitMs * (1 + retryJitter)).toBeLessThanOrEqual(5_000);
  });
});
