/**
 * CloudWatch metrics from the request's log line itself, in the Embedded Metric Format: no agent,
 * no SDK, no extra call, and no library on the cold path. CloudWatch Logs turns the fields named
 * under `_aws` into metrics in the `PlantStore` namespace.
 */
export const metricsNamespace = 'PlantStore';

export type RequestOutcome =
  | 'created'
  | 'replayed'
  | 'conflict'
  | 'unauthorized'
  | 'forbidden'
  | 'invalid'
  | 'unavailable'
  | 'issuer_unavailable'
  | 'error';

/** The counter each outcome adds one to. */
export const outcomeMetric: Readonly<Record<RequestOutcome, string>> = {
  created: 'PlantsCreated',
  replayed: 'CreatesReplayed',
  conflict: 'CreateConflicts',
  unauthorized: 'AuthFailures',
  forbidden: 'AuthFailures',
  invalid: 'ValidationFailures',
  unavailable: 'StoreUnavailable',
  issuer_unavailable: 'IssuerUnavailable',
  error: 'Errors',
};

export type RequestFacts = {
  readonly outcome: RequestOutcome;
  /** The function's name, so that stages deployed side by side keep their own metrics. */
  readonly service: string;
  readonly authFailureReason?: string | undefined;
  readonly storeLatencyMs?: number | undefined;
};

export function embeddedMetrics(facts: RequestFacts, timestamp: number): Record<string, unknown> {
  const counter = outcomeMetric[facts.outcome];
  const metrics = [{ Name: counter, Unit: 'Count' }];
  const values: Record<string, unknown> = { Service: facts.service, [counter]: 1 };
  if (facts.storeLatencyMs !== undefined) {
    metrics.push({ Name: 'StoreLatency', Unit: 'Milliseconds' });
    values.StoreLatency = facts.storeLatencyMs;
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
 * What came of a request: the outcome a step named (the handler for a success, `mapErrors` for a
 * failure its table names, such as an issuer's outage, which must not read as the table's), or
 * else the one its status tells.
 */
export function outcomeOf(status: number | undefined, named?: RequestOutcome): RequestOutcome {
  if (named !== undefined) return named;
  if (status === 200) return 'created';
  if (status === 409) return 'conflict';
  if (status === 401) return 'unauthorized';
  if (status === 403) return 'forbidden';
  if (status === 503) return 'unavailable';
  if (status !== undefined && status >= 400 && status < 500) return 'invalid';
  return 'error';
}
