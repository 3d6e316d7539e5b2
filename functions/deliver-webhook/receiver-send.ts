import { keepAliveAgent, type OutboundAgent } from '../connections/outbound-http.ts';
import type { DelivererDependencies } from './deliver-webhook.ts';
import { batchSize, deliveryDeadlineMs } from './delivery-policy.ts';
import { postToReceiver } from './receiver-request.ts';

/**
 * Whatever the receiver answers is read and dropped, up to this much; a longer answer closes its
 * connection, and its status still counts: a 2xx acknowledges whatever its body.
 */
const maxAnswerBytes = 1024 * 1024;

/**
 * One deliverer's way to the subscriber: a POST within the delivery deadline over a keep-alive
 * agent of one connection per event of a batch, kept across invocations. Each deliverer running a
 * batch needs its own, as each Lambda environment has its own: batches running at once must not
 * wait for each other's connections, which would eat into the deadline.
 */
export function receiverSend(url: URL): {
  readonly send: DelivererDependencies['send'];
  /** Its connections: `destroy()` ends them, requests in flight included. */
  readonly agent: OutboundAgent;
} {
  const agent = keepAliveAgent(url, batchSize);
  return {
    agent,
    send: ({ headers, body }) =>
      postToReceiver(url, { headers, body, agent, timeoutMs: deliveryDeadlineMs, maxAnswerBytes }),
  };
}
