import type { LocalQueue } from './local-queue.ts';
import type { TableStream } from './table-stream.ts';

/**
 * One value an event pattern's field may match: an exact string, any string but those listed
 * (`anything-but`), or the field's presence or absence (`exists`).
 */
export type PatternValue =
  | string
  | { readonly 'anything-but': string | readonly string[] }
  | { readonly exists: boolean };

/**
 * An EventBridge event pattern, in the subset a pipe's filter needs: each field lists the values
 * it may have, any one of which matches, and a nested object matches a nested field.
 */
export type EventPattern = {
  readonly [field: string]: readonly PatternValue[] | EventPattern;
};

/** Records read from the stream and moved at a time. */
const batchSize = 10;
/** How long the pipe waits before it reads again after a failed read or move. */
const retryMs = 1_000;

/**
 * A stand-in for the EventBridge pipe from the table's stream to the queue: it reads the stream's
 * records in order, keeps those its filter matches (the stack's: INSERTs but the checks' plants),
 * and sends each one,
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
  requireKnownValues(filter);
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

/**
 * Whether `event` matches `pattern` as EventBridge matches: every field, one of its values. A
 * field the event lacks, or holds an object in where the pattern expects a value, is absent: only
 * `exists: false` matches it, as EventBridge matches `exists` on leaves only.
 */
export function matchesPattern(pattern: EventPattern, event: unknown): boolean {
  const fields = event !== null && typeof event === 'object' ? event : {};
  return Object.entries(pattern).every(([field, expected]) => {
    const value = (fields as Record<string, unknown>)[field];
    if (!Array.isArray(expected)) return matchesPattern(expected as EventPattern, value);
    const leaf = value === null || typeof value !== 'object' ? value : undefined;
    return (expected as readonly PatternValue[]).some((each) => matchesValue(each, leaf));
  });
}

function matchesValue(expected: PatternValue, value: unknown): boolean {
  if (typeof expected === 'string') return value === expected;
  if ('exists' in expected) return expected.exists === (value !== undefined);
  const excluded = expected['anything-but'];
  return (
    value !== undefined &&
    !(typeof excluded === 'string' ? [excluded] : excluded).includes(value as string)
  );
}

/**
 * The filter is checked once, when the pipe starts: the local pipe matches exact strings,
 * `anything-but` strings and `exists` only, and refuses what it would otherwise misread.
 */
function requireKnownValues(pattern: EventPattern): void {
  for (const expected of Object.values(pattern)) {
    if (!Array.isArray(expected)) {
      requireKnownValues(expected as EventPattern);
      continue;
    }
    for (const item of expected as readonly unknown[]) {
      if (!isKnownValue(item)) {
        throw new Error(
          `The local pipe matches exact strings, anything-but strings and exists only, not ${JSON.stringify(item)}`,
        );
      }
    }
  }
}

function isKnownValue(item: unknown): boolean {
  if (typeof item === 'string') return true;
  if (item === null || typeof item !== 'object') return false;
  const entries = Object.entries(item);
  if (entries.length !== 1) return false;
  const [[operator, operand]] = entries as [[string, unknown]];
  if (operator === 'exists') return typeof operand === 'boolean';
  if (operator !== 'anything-but') return false;
  const excluded = Array.isArray(operand) ? operand : [operand];
  return excluded.length > 0 && excluded.every((each) => typeof each === 'string');
}
