/** Embedded Metric Format in the log line: no agent, SDK, call or library on the cold path. */
export const metricsNamespace = 'PlantStore';

export type StatusOutcome =
  | 'unauthorized'
  | 'forbidden'
  | 'invalid'
  | 'unavailable'
  | 'error'
  | 'unnamed';

/** An operation's own outcomes (a success is never guessed from a status) beside a status's. */
export type OutcomeCounters = Readonly<Record<StatusOutcome, string>> &
  Readonly<Record<string, string>>;

export type RequestFacts = {
  readonly counter: string;
  /** The function's name, so stages side by side keep their own metrics. */
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

/** A success the handler left unnamed is `unnamed`, so it does not read as a 500. */

export function statusOutcome(status: number | undefined): StatusOutcome {
  if (status === 401) return 'unauthorized';
  if (status === 403) return 'forbidden';
  if (status === 503) return 'unavailable';
  if (status !== undefined && status >= 400 && status < 500) return 'invalid';
  if (status !== undefined && status < 400) return 'unnamed';
  return 'error';
}
