import { describe, expect, it } from 'vitest';
import {
  embeddedMetrics,
  metricsNamespace,
  outcomeMetric,
  outcomeOf,
} from '../../../functions/http/request-metrics.ts';
import { extractedMetrics } from '../../support/emf.ts';

describe('outcomeOf', () => {
  it.each<[number | undefined, 'created' | 'replayed' | undefined, string]>([
    [200, undefined, 'created'],
    [200, 'created', 'created'],
    [200, 'replayed', 'replayed'],
    [409, undefined, 'conflict'],
    [401, undefined, 'unauthorized'],
    [403, undefined, 'forbidden'],
    [400, undefined, 'invalid'],
    [413, undefined, 'invalid'],
    [415, undefined, 'invalid'],
    [503, undefined, 'unavailable'],
    [500, undefined, 'error'],
    [undefined, undefined, 'error'],
  ])('calls status %s (store said %s) %s', (status, stored, outcome) => {
    expect(outcomeOf(status, stored)).toBe(outcome);
  });

  it('takes the outcome a step named over the one the status tells: an issuer outage is no store outage', () => {
    expect(outcomeOf(503, 'issuer_unavailable')).toBe('issuer_unavailable');
    expect(outcomeMetric.issuer_unavailable).toBe('IssuerUnavailable');
  });
});

describe('embeddedMetrics', () => {
  it('counts a create once and records the store latency, per Service', () => {
    const line = embeddedMetrics(
      { outcome: 'created', service: 'fn-1', storeLatencyMs: 12.5 },
      1_750_000_000_000,
    );

    expect(line).toMatchObject({ _aws: { Timestamp: 1_750_000_000_000 } });
    expect(extractedMetrics(line)).toStrictEqual([
      {
        namespace: metricsNamespace,
        dimensions: { Service: 'fn-1' },
        name: outcomeMetric.created,
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
      { outcome: 'unauthorized', service: 'fn-1', authFailureReason: 'expired' },
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

  it.each(Object.entries(outcomeMetric))(
    'counts the outcome %s as %s and nothing else',
    (outcome, metric) => {
      const line = embeddedMetrics(
        { outcome: outcome as keyof typeof outcomeMetric, service: 's' },
        0,
      );

      expect(extractedMetrics(line).map(({ name, value }) => [name, value])).toStrictEqual([
        [metric, 1],
      ]);
    },
  );
});
