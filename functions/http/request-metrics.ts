/**
 * CloudWatch metrics from the request's log line itself, in the Embedded Metric Format: no agent,
 * no SDK, no extra call, and no library on the cold path. CloudWatch Logs turns the fields named
 * under `_aws` into metrics in the `PlantStore` namespace.
 */
export const metricsNamespace = 'PlantStore';

/** The outcomes a status tells by itself, for a request no step named a more precise one for. */
export type StatusOutcome =
  | 'unauthorized'
  | 'forbidden'
  | 'invalid'
  | 'unavailable'
  | 'error'
  | 'unnamed';

/**
 * The counter each outcome adds one to, as an operation declares it: its own outcomes (a success
 * is named by its handler, never guessed from a status) beside the ones a status tells.
 */
export type OutcomeCounters = Readonly<Record<StatusOutcome, string>> &
  Readonly<Record<string, string>>;

export type RequestFacts = {
  /** The counter the request's outcome adds one to. */
  readonly counter: string;
  /** The function's name, so that stages deployed side by side keep their own metrics. */
  readonly service: string;
  readonly authFailureReason?: string | undefined;
  readonly storeLatencyMs?: number | undefined;
};

export function embeddedMetrics(facts: RequestFacts, timestamp: number): Record<string, unknown> {
  const { storeLatencyMs } = facts;
  const latency =
    storeLatencyMs === undefined ? undefined : { metric: 'StoreLatency', ms: storeLatencyMs };
  return logLineMetrics({ ...facts, latency }, timestamp);
}

/**
 * A log line's metrics: one for its `counter`, and a latency when it has one, by `Service` (and by
 * `Service` and `AuthFailureReason` when it names one).
 */
export function logLineMetrics(
  facts: {
    readonly counter: string;
    readonly service: string;
    readonly latency?: { readonly metric: string; readonly ms: number } | undefined;
    readonly authFailureReason?: string | undefined;
  },
  timestamp: number,
): Record<string, unknown> {
  const { counter, latency } = facts;
  const metrics = [{ Name: counter, Unit: 'Count' }];
  const values: Record<string, unknown> = { Service: facts.service, [counter]: 1 };
  if (latency !== undefined) {
    metrics.push({ Name: latency.metric, Unit: 'Milliseconds' });
    values[latency.metric] = latency.ms;
  }
  const dimensions = [['Service']];
  if (facts.authFailureReason !== undefined) {
    dimensions.push(['Service', 'AuthFailureReason']);
    values.AuthFailureReason = facts.authFailureReason;
  }
  return {
    _aws: {
      Timestamp: timestamp,
      CloudWatchMetrics: [
        { Namespace: metricsNamespace, Dimensions: dimensions, Metrics: metrics },
      ],
    },
    ...values,
  };
}

/**
 * What a status tells of a request by itself. It tells no success: the operation's handler names
 * it, and one it left unnamed is `unnamed`, which the operation counts where it is seen, without
 * reading as a 500 (`error`).
 */
export function statusOutcome(status: number | undefined): StatusOutcome {
  if (status === 401) return 'unauthorized';
  if (status === 403) return 'forbidden';
  if (status === 503) return 'unavailable';
  if (status !== undefined && status >= 400 && status < 500) return 'invalid';
  if (status !== undefined && status < 400) return 'unnamed';
  return 'error';
}
