import { IssuerUnavailableError } from '../auth/auth-errors.ts';

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
 * What came of a request, from its status and, for a 200, whether the store created or replayed;
 * a 503 is the store's unless the error says the issuer could not be reached, so that an issuer's
 * outage does not read as the table's.
 */
export function outcomeOf(
  status: number | undefined,
  stored: 'created' | 'replayed' | undefined,
  error?: unknown,
): RequestOutcome {
  if (status === 200) return stored ?? 'created';
  if (status === 409) return 'conflict';
  if (status === 401) return 'unauthorized';
  if (status === 403) return 'forbidden';
  if (status === 503) {
    return error instanceof IssuerUnavailableError ? 'issuer_unavailable' : 'unavailable';
  }
  if (status !== undefined && status >= 400 && status < 500) return 'invalid';
  return 'error';
}
