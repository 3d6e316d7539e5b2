import type { Logger } from '../log.ts';
import type { HttpMiddleware } from './request-context.ts';
import { embeddedMetrics, type OutcomeCounters, statusOutcome } from './request-metrics.ts';

export type AccessLogFields = {
  readonly caller: { readonly clientId: string | undefined };
  /** A word of `OutcomeCounters`, named by the handler or `mapErrors`. */
  outcome: string;
  /** Retries included. */
  storeLatencyMs: number;
};

type AccessLogStep = NonNullable<HttpMiddleware<AccessLogFields>['after']>;

/** One line per request, metrics embedded; never the token, Authorization header or body. */

export function accessLog(
  log: Logger,
  service: string,
  counters: OutcomeCounters,
): HttpMiddleware<AccessLogFields> {
  const startedAt = new WeakMap<object, number>();
  const write: AccessLogStep = ({ event, context, response, error }) => {
    const started = startedAt.get(context);
    // An invoker other than API Gateway may send no object at all; its line is written anyway.
    const { requestContext, rawPath } = Object(event) as Partial<typeof event>;
    const status = response?.statusCode;
    const outcome = context.outcome ?? statusOutcome(status);
    const authFailureReason =
      error && 'reason' in error && typeof error.reason === 'string' ? error.reason : undefined;
    log('info', 'request', {
      requestId: context.awsRequestId,
      apiRequestId: requestContext?.requestId,
      method: requestContext?.http?.method,
      path: rawPath,
      // The version that answered: the rollback alarms count a new version's answers by it.
      functionVersion: context.functionVersion,
      status,
      outcome,
      authFailureReason,
      clientId: context.caller?.clientId,
      latencyMs: started === undefined ? undefined : roundMs(performance.now() - started),
      ...embeddedMetrics(
        {
          counter: counters[outcome] ?? counters.error,
          service,
          authFailureReason,
          storeLatencyMs: context.storeLatencyMs,
        },
        Date.now(),
      ),
    });
  };
  return {
    name: 'accessLog',
    before: ({ context }) => {
      startedAt.set(context, performance.now());
    },
    after: write,
    onError: write,
  };
}

export const roundMs = (ms: number) => Math.round(ms * 1000) / 1000;
