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
 * before the retry is scaled down: the whole schedule is delivery.test.ts's. The cases run side by
 * side, so the file takes one deadline.
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
const slowMarginMs = 4_000;

describe('the webhook against a slow receiver (npm start, real time)', () => {
  const secret = generateWebhookSecret();
  let receiver: WebhookReceiver;
  let stuckAttempts = 0;

  beforeAll(async () => {
    receiver = await startWebhookReceiver({
      secret,
      behaviour: (name) => {
        if (name?.startsWith('Slow')) {
          // Well within the deadline: a loaded machine can be seconds late to read an answer.
          return { kind: 'answer', status: 200, afterMs: deliveryDeadlineMs - slowMarginMs };
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
  const logLines: string[] = [];
  const local = useTestApi(() => ({
    log: (line: string) => logLines.push(line),
    webhook: { url: receiver.url.href, secret, timeScale },
  }));

  it('takes answers late within the deadline as delivered, once each, even more of them than a batch holds, and retries one that hangs past 15 s after the first wait of the schedule (within 5 s), with the same webhook-id', async () => {
    const named = (name: string) =>
      receiver.received().filter(({ body }) => body.includes(`"name":"${name}"`));
    const until = (done: () => boolean) =>
      expect.poll(done, { timeout: 30_000, interval: 200 }).toBe(true);

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
    // The hung attempt failed at the deadline, and was held back for the schedule's first wait.
    const [first, second] = logLines
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter(({ webhookId }) => webhookId === hung?.headers['webhook-id']);
    const firstWait = retryDelaysSeconds[0] ?? 0;
    expect(first).toMatchObject({ attempt: 1, outcome: 'retried' });
    expect(first?.reason).toEqual([
      `Error: ${receiver.url.host} did not answer within ${deliveryDeadlineMs} ms`,
    ]);
    expect(first?.retryInSeconds).toBeGreaterThanOrEqual(firstWait);
    expect(first?.retryInSeconds).toBeLessThanOrEqual(firstWait * (1 + retryJitter));
    expect(second).toMatchObject({ attempt: 2, outcome: 'delivered', status: 200 });
    expect(firstWait * (1 + retryJitter)).toBeLessThanOrEqual(5);
  });
});
