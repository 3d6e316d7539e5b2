import { describe, expect, it } from 'vitest';
import { errorAnswers } from '../../functions/failures.ts';
import { statusOutcome } from '../../functions/http/request-metrics.ts';
import { sharedStatuses } from '../../functions/operation.ts';
import { countersOf } from '../../functions/operation-edge.ts';
import { operations } from '../../functions/operations.ts';

describe('errorAnswers', () => {
  it('names each domain error once, each answered as a client or a dependency failure', () => {
    expect(new Set(errorAnswers.map(({ type }) => type)).size).toBe(errorAnswers.length);
    for (const { status, retryAfterSeconds } of errorAnswers) {
      expect([400, 404, 409, 412, 503]).toContain(status);
      // Only an unavailable dependency is worth a retry, and says when.
      expect(retryAfterSeconds !== undefined).toBe(status === 503);
    }
  });

  it.each(operations.map((operation) => [operation.name, operation] as const))(
    '%s counts the outcome of every row whose status it can answer',
    (_name, operation) => {
      const counters = countersOf(operation);
      const statuses = [...operation.statuses, ...sharedStatuses];

      for (const { status, outcome = statusOutcome(status) } of errorAnswers) {
        if (statuses.includes(status)) expect(counters, outcome).toHaveProperty(outcome);
      }
    },
  );
});
