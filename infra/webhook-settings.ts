import { checkPlantTag } from '../functions/checks/check.ts';
import { deliveryDeadlineMs } from '../functions/deliver-webhook/delivery-policy.ts';

/**
 * The new-plant webhook's settings that the local server reproduces, read by the construct
 * (constructs/new-plant-webhook.ts) and by the local stand-ins (dev-server/webhook/), so the two
 * cannot drift. Plain data, so `npm start` loads no CDK code.
 */
const functionTimeoutSeconds = Math.ceil(deliveryDeadlineMs / 1000) * 2;

/** The checks' reserved tag, defined with their plant (functions/checks/check.ts). */
export { checkPlantTag };

export const webhookSettings = {
  /**
   * Long enough for a batch: every event's attempt at once (the receiver's deadline), the secret's
   * read on a cold start, and the holds of the events that failed.
   */
  functionTimeoutSeconds,
  /**
   * What brings a message back when the deliverer failed before holding it back itself; six times
   * the function's timeout, as Lambda advises for a queue it polls.
   */
  queueVisibilityTimeoutSeconds: functionTimeoutSeconds * 6,
  /**
   * The most deliverers running at once unless a stage says otherwise (`webhookConcurrency`): a
   * receiver back from an outage meets its backlog at a bounded rate, and a backlog leaves most of
   * a new account's 10 concurrent executions to the API (docs/decisions/0142-deliverer-concurrency.md).
   */
  mappingMaxConcurrency: 5,
  /**
   * The pipe's filter (an EventBridge pattern): new items only, bar the checks' own plants, whose
   * tag is `checkPlantTag`. `exists: false` keeps a plant without a tag, which `anything-but`
   * alone would drop: a pattern matches a field only where the event has it.
   */
  pipeFilter: {
    eventName: ['INSERT'],
    dynamodb: {
      NewImage: { tag: { S: [{ 'anything-but': [checkPlantTag] }, { exists: false }] } },
    },
  },
} as const;
