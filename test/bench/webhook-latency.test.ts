import { describe, expect, it } from 'vitest';
import { measureWebhookLatency } from '../../bench/webhook-latency.ts';

/** Runs the real measurement with a tiny count so it cannot rot; it asserts shape, never timing. */
describe('measureWebhookLatency (npm run bench, the webhook section)', () => {
  it('times each create from its request and its 200 to its event at the receiver, under npm start', async () => {
    const latency = await measureWebhookLatency({ creates: 5, warmup: 1 });

    expect(latency.creates).toBe(5);
    for (const figures of [latency.afterAnswer, latency.afterRequest, latency.createMs]) {
      expect(Number.isFinite(figures.medianMs)).toBe(true);
      expect(figures.p99Ms).toBeGreaterThanOrEqual(figures.medianMs);
    }
    expect(latency.afterRequest.medianMs).toBeGreaterThan(0);
  });
});
