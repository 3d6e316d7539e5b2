import { describe, expect, it } from 'vitest';
import { operation as createPlant } from '../../../functions/create-plant/operation.ts';
import { countersOf } from '../../../functions/operation-edge.ts';

const createPlantOutcomes = countersOf(createPlant);

import {
  embeddedMetrics,
  metricsNamespace,
  statusOutcome,
} from '../../../functions/http/request-metrics.ts';
import { extractedMetrics } from '../../support/emf.ts';

describe('statusOutcome', () => {
  it.each<[number | undefined, string]>([
    [401, 'unauthorized'],
    [403, 'forbidden'],
    [400, 'invalid'],
    [409, 'invalid'],
    [413, 'invalid'],
    [415, 'invalid'],
    [503, 'unavailable'],
    [500, 'error'],
    [undefined, 'error'],
  ])('calls status %s %s', (status, outcome) => {
    expect(statusOutcome(status)).toBe(outcome);
  });

  it.each([200, 204, 302])(
    'guesses no success from a status: a %s nobody named is unnamed',
    (status) => {
      expect(statusOutcome(status)).toBe('unnamed');
    },
  );
});

describe('embeddedMetrics', () => {
  it('counts a create once and records the store latency, per Service', () => {
    const line = embeddedMetrics(
      { counter: createPlantOutcomes.created, service: 'fn-1', storeLatencyMs: 12.5 },
      1_750_000_000_000,
    );

    expect(line).toMatchObject({ _aws: { Timestamp: 1_750_000_000_000 } });
    expect(extractedMetrics(line)).toStrictEqual([
      {
        namespace: metricsNamespace,
        dimensions: { Service: 'fn-1' },
        name: createPlantOutcomes.created,
        unit: 'Count',
        value: 1,
      },
      {
        namespace: metricsNamespace,
        dimensions: { Service: 'fn-1' },
        name: 'StoreLatency',
        unit: 'Milliseconds',
        value: 12.5,
      },
    ]);
  });

  it('counts an auth failure per Service and per Service and reason', () => {
    const line = embeddedMetrics(
      { counter: createPlantOutcomes.unauthorized, service: 'fn-1', authFailureReason: 'expired' },
      0,
    );

    expect(extractedMetrics(line)).toStrictEqual([
      {
        namespace: metricsNamespace,
        dimensions: { Service: 'fn-1' },
        name: 'AuthFailures',
        unit: 'Count',
        value: 1,
      },
      {
        namespace: metricsNamespace,
        dimensions: { Service: 'fn-1', AuthFailureReason: 'expired' },
        name: 'AuthFailures',
        unit: 'Count',
        value: 1,
      },
    ]);
  });

  it.each(Object.entries(createPlantOutcomes))(
    'counts the outcome %s as %s and nothing else',
    (_outcome, metric) => {
      const line = embeddedMetrics({ counter: metric, service: 's' }, 0);

      expect(extractedMetrics(line).map(({ name, value }) => [name, value])).toStrictEqual([
        [metric, 1],
      ]);
    },
  );
});
