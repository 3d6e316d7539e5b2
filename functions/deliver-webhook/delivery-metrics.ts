import { logLineMetrics } from '../http/request-metrics.ts';

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
  const { outcome, service, latencyMs } = facts;
  const latency =
    latencyMs === undefined ? undefined : { metric: deliveryLatencyMetric, ms: latencyMs };
  return logLineMetrics({ counter: deliveryCounters[outcome], service, latency }, timestamp);
}
