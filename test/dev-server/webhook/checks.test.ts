import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateWebhookSecret } from '../../../dev-server/webhook/webhook-secret.ts';
import { defaults, runContract } from '../../../scripts/contract.ts';
import { createPlant, useTestApi } from '../../support/local-api-fixture.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../../support/webhook-receiver.ts';

const smokeScript = fileURLToPath(new URL('../../../scripts/smoke.ts', import.meta.url));
const run = promisify(execFile);

/**
 * The checks a deploy runs (`npm run smoke`, then `npm run contract`, which runs the pre-traffic
 * hook's cases too) against `npm start` with the webhook on, as CI runs them against a stage: they
 * leave no plant behind, and the subscriber hears of none of theirs. A plant created after them is
 * delivered, so the webhook was on all along and the stream behind them has been read.
 */
describe('the checks against the local API with the webhook on (a deploy, as CI checks it)', () => {
  let receiver: WebhookReceiver;
  const secret = generateWebhookSecret();

  beforeAll(async () => {
    receiver = await startWebhookReceiver({
      secret,
      behaviour: () => ({ kind: 'answer', status: 200 }),
    });
  });
  afterAll(async () => {
    await receiver?.close();
  });
  const local = useTestApi(() => ({ webhook: { url: receiver.url.href, secret } }));

  it('leave no plant behind and deliver no event; a plant of a client after them is delivered', async () => {
    const { stdout } = await run(process.execPath, [
      smokeScript,
      ...['--url', local.api.url, '--token', local.token],
    ]);
    // Few generated requests: the plants they store, not their number, are what is checked here.
    const contract = await runContract({
      ...defaults,
      url: local.api.url,
      token: local.token,
      runs: 20,
    });
    const control = await createPlant(
      local.api,
      local.token,
      '{"id":4242,"name":"After the checks","tag":"indoor"}',
    );
    await expect
      .poll(() => receiver.received().length, { timeout: 20_000, interval: 10 })
      .toBeGreaterThan(0);
    // Every record moved and every message deleted: nothing else is on its way.
    await expect
      .poll(() => local.api.webhook?.backlog(), { timeout: 20_000, interval: 10 })
      .toStrictEqual({ records: 0, messages: 0 });
    const removed = await fetch(`${local.api.url}/plants/4242`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${local.token}` },
    });
    const left = await fetch(`${local.api.url}/plants?limit=100`, {
      headers: { authorization: `Bearer ${local.token}` },
    });

    expect(stdout).toMatch(/^PASS all steps$/m);
    expect(contract.failures).toStrictEqual([]);
    expect(contract.walk?.stored).toBeGreaterThan(0);
    expect([control.status, removed.status]).toStrictEqual([200, 204]);
    expect(receiver.received().map(({ body }) => body)).toStrictEqual([
      '{"id":4242,"name":"After the checks","tag":"indoor"}',
    ]);
    expect(await left.json()).toStrictEqual([]);
  });
});
