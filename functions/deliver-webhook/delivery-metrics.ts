import { metricsNamespace } from '../http/request-metrics.ts';

/** What came of one attempt to deliver an event. */
export type DeliveryOutcome = 'delivered' | 'retried' | 'dead-lettered';

/**
 * The counter each outcome adds one to, in the API's namespace and `Service` dimension: the
 * dashboard and the alarms read these names. `dead-lettered` is a last attempt that failed.
 */
export const deliveryCounters = {
  delivered: 'WebhookDelivered',
  retried: 'WebhookRetried',
  'dead-lettered': 'WebhookDeadLettered',
} as const satisfies Record<DeliveryOutcome, string>;

/** From the item's write to the acknowledging answer, for a delivered event. */
export const deliveryLatencyMetric = 'WebhookDeliveryLatency';

/** The delivery's log line's CloudWatch metrics, in the Embedded Metric Format. */
export function deliveryMetrics(
  facts: {
    readonly outcome: DeliveryOutcome;
    readonly service: string;
    readonly latencyMs?: number | undefined;
  },
  timestamp: number,
): Record<string, unknown> {
  const counter = deliveryCounters[facts.outcome];
  const metrics: { Name: string; Unit: string }[] = [{ Name: counter, Unit: 'Count' }];
  const values: Record<string, unknown> = { Service: facts.service, [counter]: 1 };
  if (facts.latencyMs !== undefined) {
    metrics.push({ Name: deliveryLatencyMetric, Unit: 'Milliseconds' });
    values[deliveryLatencyMetric] = facts.latencyMs;
  }
  return {
    _aws: {
      Timestamp: timestamp,
      CloudWatchMetrics: [
        { Namespace: metricsNamespace, Dimensions: [['Service']], Metrics: metrics },
      ],
    },
    ...values,
  };
}
