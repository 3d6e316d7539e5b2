import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  deliveryDeadlineMs,
  maxAttempts,
  retryDelaySeconds,
  retryDelaysSeconds,
  retryJitter,
} from '../../../functions/deliver-webhook/delivery-policy.ts';

const day = 24 * 60 * 60;
const randoms = fc.array(fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), {
  minLength: maxAttempts,
  maxLength: maxAttempts,
});

/** The wait after each failed attempt but the last, for one draw of the jitter. */
const waits = (draws: readonly number[]) =>
  Array.from({ length: maxAttempts - 1 }, (_, index) =>
    retryDelaySeconds(index + 1, draws[index] ?? 0),
  );

describe('retryDelaySeconds', () => {
  it('never asks SQS for a hold past its 12 h ceiling, counted from the receive, even at the most jitter', () => {
    const ceiling = 12 * 60 * 60;
    for (let attempt = 1; attempt < maxAttempts; attempt += 1) {
      const hold = retryDelaySeconds(attempt, 0.999_999);
      expect(hold + 2 * Math.ceil(deliveryDeadlineMs / 1000)).toBeLessThanOrEqual(ceiling);
    }
  });

  it('retries the first failure within 5 s, whatever the jitter', () => {
    fc.assert(
      fc.property(randoms, (draws) => {
        expect(retryDelaySeconds(1, draws[0] ?? 0)).toBeLessThanOrEqual(4);
      }),
    );
  });

  it('keeps retrying for at least 24 hours in all, whatever the jitter', () => {
    fc.assert(
      fc.property(randoms, (draws) => {
        const total = waits(draws).reduce((sum, wait) => sum + wait, 0);
        expect(total).toBeGreaterThanOrEqual(day);
      }),
    );
    expect(waits(Array(maxAttempts).fill(0)).reduce((sum, wait) => sum + wait, 0)).toBe(
      retryDelaysSeconds.reduce((sum, wait) => sum + wait, 0),
    );
  });

  it('waits longer after each failure, never less than the schedule, and within SQS limits', () => {
    fc.assert(
      fc.property(randoms, (draws) => {
        const each = waits(draws);
        each.forEach((wait, index) => {
          const base = retryDelaysSeconds[index] ?? Number.NaN;
          expect(Number.isInteger(wait)).toBe(true);
          expect(wait).toBeGreaterThanOrEqual(base);
          expect(wait).toBeLessThanOrEqual(Math.min(43_200, base * (1 + retryJitter)));
        });
      }),
    );
    const bases = [...retryDelaysSeconds];
    expect(bases).toStrictEqual([...bases].sort((a, b) => a - b));
  });

  it('spreads the retries of events that failed together', () => {
    const spread = new Set(
      Array.from({ length: 50 }, (_, index) => retryDelaySeconds(5, index / 50)),
    );

    expect(spread.size).toBeGreaterThan(25);
  });

  it('sends the message back at once after the last attempt, for the queue to dead-letter', () => {
    expect(retryDelaySeconds(maxAttempts, 0.5)).toBe(0);
    expect(retryDelaySeconds(maxAttempts + 3, 0.5)).toBe(0);
    expect(retryDelaySeconds(maxAttempts - 1, 0)).toBeGreaterThan(0);
  });
});
