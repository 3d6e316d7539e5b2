import type { Logger } from '../log.ts';
import type { HttpMiddleware } from './request-context.ts';
import { embeddedMetrics, type OutcomeCounters, statusOutcome } from './request-metrics.ts';

/** What the access log reads from the context, set by the steps before it. */
export type AccessLogFields = {
  /** Who asked, as far as the log names them: set by the step that authorizes the request. */
  readonly caller: { readonly clientId: string | undefined };
  /**
   * What came of the request, as a word of the operation's `OutcomeCounters`: named by the
   * handler, or by `mapErrors` when a step fails.
   */
  outcome: string;
  /** How long the store took, retries included: set by the handler. */
  storeLatencyMs: number;
};

type AccessLogStep = NonNullable<HttpMiddleware<AccessLogFields>['after']>;

/**
 * One JSON line per request, written last: who asked (the request ids, the client id), what came
 * of it and how long it took, with the request's CloudWatch metrics embedded: the counter
 * `counters` names for its outcome. Never the token, the Authorization header or the body.
 */
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
