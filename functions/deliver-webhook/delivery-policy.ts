// What the deliverer acts on, the stack configures and docs/webhooks.md promises
// (docs/decisions/0103-retry-schedule.md). Plain data, so the stack loads no function code.

/** Small, so an invocation ends soon after its slowest receiver. */
export const batchSize = 10;

/** For the status line of a 2xx; the body is read, and dropped, within it too. */
export const deliveryDeadlineMs = 15_000;

/** By the attempt that failed: a blip costs little, a receiver down is retried over a day. */
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

/** The queue's `maxReceiveCount`. */
export const maxAttempts = retryDelaysSeconds.length + 1;

/** Spreads the events an outage held back; only ever longer, so the schedule is the least. */
export const retryJitter = 0.2;

/** SQS's ceiling, counted from the receive. */
const maxVisibilityTimeoutSeconds = 12 * 60 * 60;

/** A hold is set up to a batch's run after the receive; SQS would refuse past its ceiling. */
const holdHeadroomSeconds = 2 * Math.ceil(deliveryDeadlineMs / 1000);

/** After the last attempt 0: SQS moves the message to the DLQ on its next receive. */

export function retryDelaySeconds(attempt: number, random: number): number {
  if (attempt >= maxAttempts) return 0;
  const base = retryDelaysSeconds[Math.max(attempt, 1) - 1] ?? 0;
  return Math.min(
    maxVisibilityTimeoutSeconds - holdHeadroomSeconds,
    Math.floor(base * (1 + retryJitter * random)),
  );
}
