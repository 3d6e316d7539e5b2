import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nextLinkTarget, parseExactJson } from '../../../clients/plant-store-client.ts';
import { generateWebhookSecret } from '../../../dev-server/webhook/webhook-secret.ts';
import {
  maxAttempts,
  retryDelaysSeconds,
  retryJitter,
} from '../../../functions/deliver-webhook/delivery-policy.ts';
import { defaults, runContract } from '../../../scripts/contract.ts';
import { createPlant, useTestApi } from '../../support/local-api-fixture.ts';
import {
  type ReceivedWebhook,
  type ReceiverBehaviour,
  startWebhookReceiver,
  type WebhookReceiver,
} from '../../support/webhook-receiver.ts';

/**
 * The retry schedule's waits, a hundred-thousandth of their length: its 27 hours take about a
 * second, so that a test sees an event retried to the DLQ (a test-only option of the local queue).
 */
const timeScale = 1e-5;

/** The plant's name in a delivered body, which says how the receiver answers it. */
const nameOf = ({ body }: ReceivedWebhook) => (JSON.parse(body) as { name: string }).name;
const idOf = ({ headers }: ReceivedWebhook) => headers['webhook-id'] ?? '';
/** Whether the deliverer saw it acknowledged: a 2xx answer. */
const acknowledged = ({ answered }: ReceivedWebhook) =>
  answered !== undefined && answered >= 200 && answered < 300;
const ok: ReceiverBehaviour = { kind: 'answer', status: 200 };

describe("the new-plant webhook through npm start (the deliverer's code, the local queue, a real receiver)", () => {
  const secret = generateWebhookSecret();
  /** How the receiver answers the events of a plant, by the plant's name; 200 for the rest. */
  const answers = new Map<string, () => ReceiverBehaviour>();
  const logLines: string[] = [];
  let receiver: WebhookReceiver;
  let nextId = 1000;

  beforeAll(async () => {
    receiver = await startWebhookReceiver({
      secret,
      behaviour: (name) => answers.get(name ?? '')?.() ?? ok,
    });
  });
  afterAll(async () => {
    await receiver?.close();
  });
  // Started after the receiver, closed before it.
  const local = useTestApi(() => ({
    log: (line: string) => logLines.push(line),
    webhook: { url: receiver.url.href, secret, timeScale },
  }));

  const create = (body: string) => createPlant(local.api, local.token, body);
  const remove = (id: string) =>
    fetch(`${local.api.url}/plants/${id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${local.token}` },
    });
  /** Resolves once every stream record has been moved and every message deleted. */
  const settled = async () => {
    for (;;) {
      const backlog = await local.api.webhook?.backlog();
      if (backlog?.records === 0 && backlog.messages === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  const eventsOf = (name: string) => receiver.received().filter((a) => nameOf(a) === name);
  /** The deliverer's line for each attempt, in the server's log (from its `from`th line). */
  const deliveryLines = (from = 0) =>
    logLines
      .slice(from)
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter(({ message }) => message === 'webhook delivery');
  const acknowledgedOf = (name: string) => eventsOf(name).filter(acknowledged);
  /** The dead letters, as the log shows them in memory: each line ends with the record. */
  const deadLetters = () =>
    logLines.flatMap(
      (line) => /^webhook: \S+ failed \d+ attempts; dead letter: (.*)$/.exec(line)?.[1] ?? [],
    );
  const until = (done: () => boolean) =>
    expect.poll(done, { timeout: 20_000, interval: 10 }).toBe(true);
  /** Every plant stored, page after page, as the list answers them. */
  const everyPlant = async () => {
    const plants: unknown[] = [];
    let target: string | undefined = '/plants?limit=100';
    while (target !== undefined) {
      const response = await fetch(`${local.api.url}${target}`, {
        headers: { authorization: `Bearer ${local.token}` },
      });
      plants.push(...(parseExactJson(await response.text()) as unknown[]));
      target = nextLinkTarget(response.headers.get('link'));
    }
    return plants;
  };

  it('delivers a new plant once, signed, with its exact int64 id, name and tag', async () => {
    const response = await create('{"id":9223372036854775807,"name":"Max","tag":"indoor"}');
    expect(response.status).toBe(200);

    await until(() => acknowledgedOf('Max').length === 1);
    await settled();

    const [event] = eventsOf('Max');
    expect(eventsOf('Max')).toHaveLength(1);
    expect(event?.body).toBe('{"id":9223372036854775807,"name":"Max","tag":"indoor"}');
    expect(event?.verified).toBe(true);
    expect(event && idOf(event)).toMatch(/^msg_[0-9a-f]{32}$/);
    const timestamp = Number(event?.headers['webhook-timestamp']);
    expect(Math.abs(timestamp - Date.now() / 1000)).toBeLessThan(60);
  });

  it('delivers exactly one event for a replay storm of one create, and none for a 409', async () => {
    const body = '{"id":2001,"name":"Storm"}';

    const statuses = await Promise.all(
      Array.from({ length: 10 }, () => create(body).then((response) => response.status)),
    );
    const conflict = await create('{"id":2001,"name":"Not Storm"}');
    await settled();

    expect(statuses.every((status) => status === 200)).toBe(true);
    expect(conflict.status).toBe(409);
    expect(eventsOf('Storm')).toHaveLength(1);
    expect(eventsOf('Not Storm')).toHaveLength(0);
  });

  it('delivers no event for a replace: a PUT is not a new plant', async () => {
    expect((await create('{"id":2003,"name":"Chameleon"}')).status).toBe(200);
    await until(() => acknowledgedOf('Chameleon').length === 1);

    const replaced = await fetch(`${local.api.url}/plants/2003`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${local.token}`, 'content-type': 'application/json' },
      body: '{"name":"Chameleon replaced"}',
    });
    await settled();

    expect(replaced.status).toBe(200);
    expect(eventsOf('Chameleon')).toHaveLength(1);
    expect(eventsOf('Chameleon replaced')).toHaveLength(0);
  });

  it('delivers a delete and re-create as two events with different webhook-ids', async () => {
    expect((await create('{"id":2002,"name":"Phoenix"}')).status).toBe(200);
    await until(() => acknowledgedOf('Phoenix').length === 1);
    expect((await remove('2002')).status).toBe(204);
    expect((await remove('2002')).status).toBe(204);

    expect((await create('{"id":2002,"name":"Phoenix"}')).status).toBe(200);
    await until(() => acknowledgedOf('Phoenix').length === 2);
    await settled();

    const ids = eventsOf('Phoenix').map(idOf);
    expect(ids).toHaveLength(2);
    expect(new Set(ids).size).toBe(2);
  });

  it.each<[string, ReceiverBehaviour]>([
    ['500', { kind: 'answer', status: 500 }],
    ['404', { kind: 'answer', status: 404 }],
    ['a 301 (not followed)', { kind: 'redirect', status: 301, location: '/moved' }],
    ['a reset connection', { kind: 'reset' }],
  ])(
    'retries an event the receiver first answers with %s, with the same webhook-id, until a 2xx',
    async (_case, first) => {
      const name = `Retry ${_case}`;
      let attempts = 0;
      answers.set(name, () => (++attempts <= 2 ? first : ok));

      expect((await create(JSON.stringify({ id: nextId++, name }))).status).toBe(200);
      await until(() => acknowledgedOf(name).length === 1);
      await settled();

      const received = eventsOf(name);
      expect(received.map(acknowledged)).toEqual([false, false, true]);
      expect(new Set(received.map(idOf)).size).toBe(1);
      expect(new Set(received.map((attempt) => attempt.body)).size).toBe(1);
      expect(receiver.received().some((attempt) => attempt.path === '/moved')).toBe(false);
    },
  );

  it('delivers what was created while the receiver was down, once it is back', async () => {
    const names = ['Down 1', 'Down 2', 'Down 3'];
    const from = logLines.length;
    await receiver.down();

    for (const name of names) {
      expect((await create(JSON.stringify({ id: nextId++, name }))).status).toBe(200);
    }
    // A long outage on the retry schedule's scale, counted in attempts rather than by the clock:
    // each event past its third wait, and still short of the last attempt.
    const fourth = () => deliveryLines(from).filter(({ attempt }) => attempt === 4);
    await until(() => fourth().length === names.length);
    expect(names.flatMap(eventsOf)).toEqual([]);
    await receiver.up();
    await until(() => names.every((name) => acknowledgedOf(name).length === 1));
    await settled();

    expect(names.map((name) => eventsOf(name).length)).toEqual([1, 1, 1]);
    expect(deadLetters()).toEqual([]);
  });

  it('keeps delivering the other events while one is refused forever, which ends in the dead letters after every attempt of the schedule', async () => {
    answers.set('Refused', () => ({ kind: 'answer', status: 400 }));
    const others = Array.from({ length: 12 }, (_, index) => `Welcome ${index}`);

    const responses = await Promise.all(
      ['Refused', ...others].map((name) => create(JSON.stringify({ id: nextId++, name }))),
    );
    await until(() => others.every((name) => acknowledgedOf(name).length === 1));
    await until(() => eventsOf('Refused').length === maxAttempts);
    await settled();

    expect(responses.map((response) => response.status).every((status) => status === 200)).toBe(
      true,
    );
    expect(others.map((name) => eventsOf(name).length)).toEqual(others.map(() => 1));
    const refused = eventsOf('Refused');
    expect(refused).toHaveLength(maxAttempts);
    const webhookId = refused[0] ? idOf(refused[0]) : '';
    expect(refused.map(idOf)).toEqual(refused.map(() => webhookId));
    // No head-of-line blocking, by order: every other event was acknowledged before the refused
    // one's retries, which take the whole schedule, had run out.
    const lastRefused = refused.at(-1)?.receivedAt ?? 0;
    for (const name of others) {
      expect(acknowledgedOf(name)[0]?.receivedAt).toBeLessThan(lastRefused);
    }
    // Held back for each wait of the schedule, stretched by the jitter only, then dead-lettered.
    const attempts = deliveryLines().filter((line) => line.webhookId === webhookId);
    expect(attempts.map(({ attempt }) => attempt)).toEqual(refused.map((_, index) => index + 1));
    expect(attempts.map(({ outcome }) => outcome)).toEqual([
      ...retryDelaysSeconds.map(() => 'retried'),
      'dead-lettered',
    ]);
    for (const [index, seconds] of retryDelaysSeconds.entries()) {
      expect(attempts[index]?.retryInSeconds).toBeGreaterThanOrEqual(seconds);
      expect(attempts[index]?.retryInSeconds).toBeLessThanOrEqual(seconds * (1 + retryJitter));
    }
    const records = deadLetters().map((body) => JSON.parse(body));
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({
      eventName: 'INSERT',
      eventID: webhookId.replace(/^msg_/, ''),
      dynamodb: { NewImage: { name: { S: 'Refused' } } },
    });
    // In memory, the log is where a developer sees it.
    expect(logLines).toContainEqual(
      `webhook: ${webhookId} failed ${maxAttempts} attempts; dead letter: ${deadLetters()[0]}`,
    );
  });

  it('signs so that a receiver with another secret fails verification', async () => {
    const stranger = await startWebhookReceiver({ secret: generateWebhookSecret() });
    try {
      const [attempt] = eventsOf('Max');
      const {
        'webhook-id': id,
        'webhook-timestamp': timestamp,
        'webhook-signature': signature,
      } = attempt?.headers ?? {};
      await fetch(stranger.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'webhook-id': id ?? '',
          'webhook-timestamp': timestamp ?? '',
          'webhook-signature': signature ?? '',
        },
        body: attempt?.body ?? '',
      });

      expect(attempt?.verified).toBe(true);
      expect(stranger.received()[0]?.verified).toBe(false);
      expect(stranger.received()[0]?.verifyError).toMatch(/No matching signature found/);
    } finally {
      await stranger.close();
    }
  });

  it('delivers every create that answered 200 as new at least once, and nothing else, under a mixed load', async () => {
    const ids = Array.from({ length: 8 }, () => nextId++);
    // Each id gets each kind of request once, in an order of its own.
    const requests = Array.from({ length: 40 }, (_, index) => {
      const id = ids[index % ids.length];
      const kind = index % 5;
      if (kind === 3) return { body: undefined, send: () => remove(String(id)) };
      const body = JSON.stringify({ id, name: kind === 4 ? `Other ${id}` : `Mixed ${id}` });
      return { body, send: () => create(body) };
    });

    const sent = await Promise.all(
      requests.map(async ({ body, send }) => ({
        body,
        requestId: (await send()).headers.get('apigw-requestid') ?? '',
      })),
    );
    const outcomeOf = (requestId: string) =>
      logLines
        .map((line) => (line.startsWith('{') ? JSON.parse(line) : {}) as Record<string, unknown>)
        .find((line) => line.message === 'request' && line.apiRequestId === requestId)?.outcome;
    // The functions' log lines travel from their workers on their own.
    await expect
      .poll(() => sent.every(({ requestId }) => outcomeOf(requestId)), { timeout: 20_000 })
      .toBe(true);
    await settled();

    const createdBodies = sent
      .filter(({ requestId }) => outcomeOf(requestId) === 'created')
      .map(({ body }) => body);
    const deliveredBodies = new Map(
      receiver
        .received()
        .filter((attempt) => /^(Mixed|Other) /.test(nameOf(attempt)))
        .map((attempt) => [idOf(attempt), attempt.body]),
    );
    expect(createdBodies.length).toBeGreaterThan(ids.length);
    expect([...deliveredBodies.values()].sort()).toEqual(createdBodies.sort());
  });

  /**
   * The checks a deploy runs, as CI runs them against a stage with the webhook on
   * (docs/decisions/0146-check-plants-not-delivered.md): the contract runs every operation's checks
   * (the pre-traffic hook's cases) and samples, built by the helpers `npm run smoke` sends too
   * (scripts/check-http.ts). A plant created after them is delivered, so the webhook was on all
   * along and the stream behind them has been read.
   */
  it('lets the checks a deploy runs leave no plant behind and announce none of theirs; a plant of a client after them is delivered', async () => {
    await settled();
    const before = await everyPlant();
    const heard = receiver.received().length;

    // Few generated requests: the plants they store, not their number, are what is checked here.
    const contract = await runContract({
      ...defaults,
      url: local.api.url,
      token: local.token,
      runs: 1,
    });
    const control = await create('{"id":4242,"name":"After the checks","tag":"indoor"}');
    await until(() => acknowledgedOf('After the checks').length === 1);
    // Every record moved and every message deleted: nothing else is on its way.
    await settled();
    const removed = await remove('4242');

    expect(contract.failures).toStrictEqual([]);
    expect(contract.walk?.stored).toBeGreaterThan(0);
    expect([control.status, removed.status]).toStrictEqual([200, 204]);
    expect(
      receiver
        .received()
        .slice(heard)
        .map(({ body }) => body),
    ).toStrictEqual(['{"id":4242,"name":"After the checks","tag":"indoor"}']);
    expect(await everyPlant()).toStrictEqual(before);
  });
});
