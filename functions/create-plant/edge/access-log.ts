import type { Logger } from '../log.ts';
import type { PlantMiddleware } from './request-context.ts';

/**
 * One JSON line per request, written last: who asked (the request ids, the client id), what came
 * of it and how long it took. Never the token, the Authorization header or the body.
 */
export function accessLog(log: Logger): PlantMiddleware {
  const startedAt = new WeakMap<object, number>();
  const write: NonNullable<PlantMiddleware['after']> = ({ event, context, response }) => {
    const started = startedAt.get(context);
    log('info', 'request', {
      requestId: context.awsRequestId,
      apiRequestId: event.requestContext?.requestId,
      method: event.requestContext?.http?.method,
      path: event.rawPath,
      status: response?.statusCode,
      outcome: context.outcome,
      clientId: context.caller?.clientId,
      latencyMs:
        started === undefined ? undefined : Math.round((performance.now() - started) * 1000) / 1000,
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
