/**
 * When a new-plant event counts as delivered, and when it is tried again: the numbers the
 * deliverer acts on, the stack configures the queue with, and `openapi.yaml` and docs/webhooks.md
 * promise subscribers (docs/decisions/0103-retry-schedule.md). Plain data, so the stack loads no
 * function code.
 */

/**
 * Events handed to one invocation at most, all sent at once: small, so that an invocation ends
 * soon after its slowest receiver's answer or deadline.
 */
export const batchSize = 10;

/**
 * A 2xx answer whose status line arrives within this acknowledges an event, whatever its body;
 * anything later fails it. The body is read, and dropped, within the same deadline.
 */
export const deliveryDeadlineMs = 15_000;

/**
 * How long a failed event waits before its next attempt, by the attempt that failed: the first
 * retry within 5 s, so a blip costs little; then longer and longer, so a receiver that is down is
 * retried for more than a day in all without being flooded.
 */
export const retryDelaysSeconds = [
  2,
  30,
  5 * 60,
  30 * 60,
  2 * 60 * 60,
  5 * 60 * 60,
  10 * 60 * 60,
  10 * 60 * 60,
] as const;

/** The first attempt and one per delay; the queue's `maxReceiveCount`, after which the DLQ. */
export const maxAttempts = retryDelaysSeconds.length + 1;

/**
 * Each wait is stretched by up to this share, at random, so that the events a receiver's outage
 * held back come back spread out rather than all at once. Only ever longer: the schedule above is
 * the least a subscriber gets.
 */
export const retryJitter = 0.2;

/** SQS's ceiling for a message's visibility timeout: 12 hours, counted from the receive. */
const maxVisibilityTimeoutSeconds = 12 * 60 * 60;

/**
 * A hold is set while the batch runs, up to the deliverer's deadline and the rest of its batch
 * after the receive, so it asks for that much less than SQS's ceiling, which SQS would refuse.
 */
const holdHeadroomSeconds = 2 * Math.ceil(deliveryDeadlineMs / 1000);

/**
 * The visibility timeout that holds an event back until its next attempt, after attempt
 * `attempt` (1 for the first) failed; `random` is in [0, 1). After the last attempt it is 0: the
 * message goes back at once, and SQS moves it to the DLQ on its next receive.
 */
export function retryDelaySeconds(attempt: number, random: number): number {
  if (attempt >= maxAttempts) return 0;
  const base = retryDelaysSeconds[Math.max(attempt, 1) - 1] ?? 0;
  return Math.min(
    maxVisibilityTimeoutSeconds - holdHeadroomSeconds,
    Math.floor(base * (1 + retryJitter * random)),
  );
}
