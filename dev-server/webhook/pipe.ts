import type { LocalQueue } from './local-queue.ts';
import type { TableStream } from './table-stream.ts';

/**
 * An EventBridge event pattern, in the subset a pipe's filter needs: each field lists the values
 * it may have, and a nested object matches a nested field.
 */
export type EventPattern = { readonly [field: string]: readonly string[] | EventPattern };

/** Records read from the stream and moved at a time. */
const batchSize = 10;
/** How long the pipe waits before it reads again after a failed read or move. */
const retryMs = 1_000;

/**
 * A stand-in for the EventBridge pipe from the table's stream to the queue: it reads the stream's
 * records in order, keeps those its filter matches (the stack's: INSERT only), and sends each one,
 * as JSON, as one message. The messages and the trim of the records they came from commit in one
 * write of the same database, so a record is moved once, even across a crash; on AWS the pipe
 * delivers at least once. It reads as soon as a write has added records, so nothing polls.
 */
export function startPipe(options: {
  readonly stream: TableStream;
  readonly target: LocalQueue;
  readonly filter: EventPattern;
  readonly log: (line: string) => void;
}): { stop(): Promise<void> } {
  const { stream, target, filter, log } = options;
  requireExactValues(filter);
  let stopped = false;
  let added = Promise.withResolvers<void>();
  const unsubscribe = stream.onRecords(() => {
    added.resolve();
    added = Promise.withResolvers<void>();
  });

  const run = async () => {
    while (!stopped) {
      const woken = added.promise;
      try {
        const records = await stream.read(batchSize);
        if (records.length > 0) {
          const kept = records.filter(({ record }) => matchesPattern(filter, record));
          await target.send(
            kept.map(({ record }) => JSON.stringify(record)),
            stream.trimOperations(records),
          );
          continue;
        }
      } catch (error) {
        if (stopped) break;
        log(`webhook pipe: could not move stream records, retrying: ${String(error)}`);
        await new Promise((resolve) => setTimeout(resolve, retryMs));
        continue;
      }
      await woken;
    }
  };
  const running = run();

  return {
    async stop() {
      stopped = true;
      unsubscribe();
      added.resolve();
      await running;
    },
  };
}

/** Whether `event` matches `pattern` as EventBridge matches: every field, one of its values. */
function matchesPattern(pattern: EventPattern, event: unknown): boolean {
  if (event === null || typeof event !== 'object') return false;
  return Object.entries(pattern).every(([field, expected]) => {
    const value = (event as Record<string, unknown>)[field];
    if (!Array.isArray(expected)) return matchesPattern(expected as EventPattern, value);
    return expected.includes(value as string);
  });
}

/** The filter is checked once, when the pipe starts: the local pipe matches exact values only. */
function requireExactValues(pattern: EventPattern): void {
  for (const expected of Object.values(pattern)) {
    if (!Array.isArray(expected)) {
      requireExactValues(expected as EventPattern);
      continue;
    }
    for (const item of expected) {
      if (typeof item !== 'string') {
        throw new Error(`The local pipe matches exact values only, not ${JSON.stringify(item)}`);
      }
    }
  }
}
