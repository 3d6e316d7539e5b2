import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { LevelDatabase, LevelOperation } from 'dynalite/db/index.js';
import { AwsServiceError, localAccountId } from './aws-json-endpoint.ts';

/** One received message, as ReceiveMessage returns it and the event source mapping passes it on. */
export interface ReceivedMessage {
  readonly messageId: string;
  readonly receiptHandle: string;
  readonly body: string;
  readonly md5OfBody: string;
  /** `ApproximateReceiveCount`, this receive included. */
  readonly receiveCount: number;
  readonly sentTimestamp: number;
  readonly firstReceiveTimestamp: number;
}

export interface QueueSettings {
  readonly name: string;
  readonly region: string;
  /** The queue's default, for a receive that names none. */
  readonly visibilityTimeoutSeconds: number;
  /** The redrive policy: after this many receives, the next receive moves the message there. */
  readonly redrive?: { readonly maxReceiveCount: number; readonly deadLetterQueue: LocalQueue };
  /**
   * Test-only: a ChangeMessageVisibility timeout (a retry's wait) lasts this share of its seconds
   * (0.01: 30 s -> 300 ms), so that a test sees the retry schedule run in seconds. A receive's
   * timeout is not scaled: it covers an invocation, which runs in real time. @default 1
   */
  readonly timeScale?: number;
}

/** What is kept of each message, in the database and in memory. */
interface MessageState {
  readonly messageId: string;
  readonly body: string;
  readonly md5OfBody: string;
  readonly sentTimestamp: number;
  receiveCount: number;
  firstReceiveTimestamp?: number;
  /** The latest receive's time: ChangeMessageVisibility's 12 hours count from it. */
  receivedAt?: number;
  /** Epoch ms from which a receive may return it. */
  visibleAt: number;
  receiptHandle?: string;
  /**
   * Whether its current invisibility is a receive's (the invocation still holds it), not one a
   * ChangeMessageVisibility asked for (a retry's wait).
   */
  heldByReceive: boolean;
}

/** ChangeMessageVisibility's ceiling, counted from the message's receive: 12 hours. */
const maxVisibilitySeconds = 12 * 60 * 60;

/**
 * A stand-in for one SQS standard queue on this machine, behaving as SQS documents it: a received
 * message stays invisible for the visibility timeout (the queue's, or the receive's), and comes
 * back unless deleted with its latest receipt handle; ChangeMessageVisibility sets the time left
 * from now; each receive counts in `ApproximateReceiveCount`, and with a redrive policy the
 * receive after the `maxReceiveCount`-th moves the message to the dead-letter queue instead.
 *
 * The messages live in the LevelDB of the local table (in the data directory, or in memory), under
 * `webhook~sqs~<queue>~`, every change written in order before the call that made it returns, so a
 * message sent, moved or deleted stays so across a restart, even a SIGKILL. Where it differs from
 * SQS: messages are kept until deleted (no retention period); ordering is first in, first out
 * among the visible messages; and a message that a receive still held when `npm start` stopped is
 * visible again at the next start, since the invocation that held it is gone
 * (docs/decisions/0106-local-queue.md).
 */
export class LocalQueue {
  readonly name: string;
  readonly url: string;
  readonly arn: string;
  readonly #level: LevelDatabase;
  readonly #settings: QueueSettings;
  readonly #prefix: string;
  readonly #messages = new Map<string, MessageState>();
  readonly #byReceipt = new Map<string, string>();
  #changed = Promise.withResolvers<void>();

  private constructor(level: LevelDatabase, settings: QueueSettings, endpoint: string) {
    this.#level = level;
    this.#settings = settings;
    this.name = settings.name;
    this.url = `${endpoint}/${localAccountId}/${settings.name}`;
    this.arn = `arn:aws:sqs:${settings.region}:${localAccountId}:${settings.name}`;
    this.#prefix = `webhook~sqs~${settings.name}~`;
  }

  /** The queue, with the messages kept from an earlier run. */
  static async open(
    level: LevelDatabase,
    settings: QueueSettings,
    endpoint: string,
  ): Promise<LocalQueue> {
    const queue = new LocalQueue(level, settings, endpoint);
    const now = Date.now();
    for await (const [, value] of level.iterator({
      gte: queue.#prefix,
      lt: `${queue.#prefix}\uffff`,
    })) {
      const message = value as MessageState;
      if (message.heldByReceive && message.visibleAt > now) {
        message.visibleAt = now;
        message.heldByReceive = false;
      }
      queue.#messages.set(message.messageId, message);
      if (message.receiptHandle) queue.#byReceipt.set(message.receiptHandle, message.messageId);
    }
    return queue;
  }

  /**
   * Adds messages, committed together with `alongside` (writes of the same database) in one
   * atomic batch: the pipe trims the stream records it moved here in the same write.
   */
  async send(
    bodies: readonly string[],
    alongside: readonly LevelOperation[] = [],
  ): Promise<{ messageId: string; md5OfBody: string }[]> {
    const now = Date.now();
    const added = bodies.map(
      (body): MessageState => ({
        messageId: randomUUID(),
        body,
        md5OfBody: createHash('md5').update(body).digest('hex'),
        sentTimestamp: now,
        receiveCount: 0,
        visibleAt: now,
        heldByReceive: false,
      }),
    );
    await this.#write([...added.map((message) => this.#put(message)), ...alongside]);
    for (const message of added) this.#messages.set(message.messageId, message);
    this.#wake();
    return added.map(({ messageId, md5OfBody }) => ({ messageId, md5OfBody }));
  }

  get visibilityTimeoutSeconds(): number {
    return this.#settings.visibilityTimeoutSeconds;
  }

  get redrive(): QueueSettings['redrive'] {
    return this.#settings.redrive;
  }

  /**
   * A message move task (the redrive), done at once: every message here sent to `destination`
   * as a new message, in one atomic write with their deletion here.
   */
  async moveAllTo(destination: LocalQueue): Promise<void> {
    const moving = [...this.#messages.values()];
    if (moving.length === 0) return;
    for (const message of moving) {
      this.#messages.delete(message.messageId);
      this.#forgetReceipt(message);
    }
    await destination.send(
      moving.map(({ body }) => body),
      moving.map((message) => this.#del(message)),
    );
  }

  /** Up to `max` visible messages, each now invisible for `visibilityTimeoutSeconds`. */
  async receive(
    max: number,
    visibilityTimeoutSeconds = this.#settings.visibilityTimeoutSeconds,
  ): Promise<ReceivedMessage[]> {
    const now = Date.now();
    const received: ReceivedMessage[] = [];
    const writes: LevelOperation[] = [];
    const moved: MessageState[] = [];
    const { redrive } = this.#settings;
    for (const message of this.#messages.values()) {
      if (received.length >= max) break;
      if (message.visibleAt > now) continue;
      if (redrive !== undefined && message.receiveCount >= redrive.maxReceiveCount) {
        moved.push(message);
        continue;
      }
      this.#forgetReceipt(message);
      message.receiveCount += 1;
      message.firstReceiveTimestamp ??= now;
      message.receivedAt = now;
      message.receiptHandle = randomBytes(48).toString('base64url');
      message.visibleAt = now + visibilityTimeoutSeconds * 1000;
      message.heldByReceive = true;
      this.#byReceipt.set(message.receiptHandle, message.messageId);
      writes.push(this.#put(message));
      received.push({
        messageId: message.messageId,
        receiptHandle: message.receiptHandle,
        body: message.body,
        md5OfBody: message.md5OfBody,
        receiveCount: message.receiveCount,
        sentTimestamp: message.sentTimestamp,
        firstReceiveTimestamp: message.firstReceiveTimestamp,
      });
    }
    for (const message of moved) {
      this.#messages.delete(message.messageId);
      this.#forgetReceipt(message);
    }
    if (redrive !== undefined && moved.length > 0) {
      // Moved whole, with its id, body, sent time and receive count, as SQS moves it.
      const arriving = moved.map((message) => ({
        ...message,
        visibleAt: now,
        heldByReceive: false,
      }));
      writes.push(...moved.map((message) => this.#del(message)));
      writes.push(...redrive.deadLetterQueue.#arrive(arriving));
    }
    if (writes.length > 0) await this.#write(writes);
    return received;
  }

  /** DeleteMessage: only the latest receipt handle deletes; any other succeeds and does nothing. */
  async delete(receiptHandle: string): Promise<void> {
    const message = this.#inFlight(receiptHandle);
    if (message === undefined) return;
    this.#messages.delete(message.messageId);
    this.#forgetReceipt(message);
    await this.#write([this.#del(message)]);
  }

  /** ChangeMessageVisibility: the message becomes visible `seconds` from now (0: at once). */
  async changeVisibility(receiptHandle: string, seconds: number): Promise<void> {
    if (!Number.isInteger(seconds) || seconds < 0 || seconds > maxVisibilitySeconds) {
      throw new AwsServiceError(
        'InvalidParameterValue',
        `Value ${seconds} for parameter VisibilityTimeout is invalid. Reason: Must be between 0 and 43200.`,
      );
    }
    const message = this.#inFlight(receiptHandle);
    if (message === undefined) {
      throw new AwsServiceError(
        'ReceiptHandleIsInvalid',
        'The receipt handle provided is not valid.',
      );
    }
    const now = Date.now();
    if (message.visibleAt <= now) {
      throw new AwsServiceError('MessageNotInflight', 'The message is not in flight.');
    }
    if ((now - (message.receivedAt ?? now)) / 1000 + seconds > maxVisibilitySeconds) {
      throw new AwsServiceError(
        'InvalidParameterValue',
        'Total VisibilityTimeout for the message is beyond the limit [43200 seconds]',
      );
    }
    message.visibleAt = now + Math.round(seconds * 1000 * (this.#settings.timeScale ?? 1));
    message.heldByReceive = false;
    await this.#write([this.#put(message)]);
    this.#wake();
  }

  /** GetQueueAttributes' counts: visible, and received but not yet deleted. */
  counts(): { visible: number; inFlight: number } {
    const now = Date.now();
    let visible = 0;
    for (const message of this.#messages.values()) if (message.visibleAt <= now) visible += 1;
    return { visible, inFlight: this.#messages.size - visible };
  }

  /** Every message's body, oldest first: what the DLQ holds, for a look without receiving. */
  bodies(): string[] {
    return [...this.#messages.values()].map(({ body }) => body);
  }

  /**
   * Resolves once a receive may find a message: at once if one is visible, else when the first
   * becomes visible, a message arrives or a visibility changes, whichever is first.
   */
  async whenReceivable(signal: AbortSignal): Promise<void> {
    const changed = this.#changed.promise;
    let next = Number.POSITIVE_INFINITY;
    for (const message of this.#messages.values()) next = Math.min(next, message.visibleAt);
    const wait = next - Date.now();
    if (wait <= 0) return;
    let timer: NodeJS.Timeout | undefined;
    const aborted = Promise.withResolvers<void>();
    const onAbort = () => aborted.resolve();
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      await Promise.race([
        changed,
        aborted.promise,
        ...(Number.isFinite(wait)
          ? [new Promise<void>((resolve) => (timer = setTimeout(resolve, wait)))]
          : []),
      ]);
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
    }
  }

  #arrive(messages: MessageState[]): LevelOperation[] {
    for (const message of messages) {
      this.#messages.set(message.messageId, message);
      if (message.receiptHandle) this.#byReceipt.set(message.receiptHandle, message.messageId);
    }
    queueMicrotask(() => this.#wake());
    return messages.map((message) => this.#put(message));
  }

  /** The message whose latest receive gave this handle; an older handle names none. */
  #inFlight(receiptHandle: string): MessageState | undefined {
    const id = this.#byReceipt.get(receiptHandle);
    return id === undefined ? undefined : this.#messages.get(id);
  }

  /** Writes in the order they were made, whatever order the database would finish them in. */
  #write(operations: LevelOperation[]): Promise<void> {
    return serialWrite(this.#level, operations);
  }

  #forgetReceipt(message: MessageState) {
    if (message.receiptHandle) this.#byReceipt.delete(message.receiptHandle);
  }

  #put(message: MessageState): LevelOperation {
    return { type: 'put', key: `${this.#prefix}${message.messageId}`, value: message };
  }

  #del(message: MessageState): LevelOperation {
    return { type: 'del', key: `${this.#prefix}${message.messageId}` };
  }

  #wake() {
    this.#changed.resolve();
    this.#changed = Promise.withResolvers<void>();
  }
}

const writeChains = new WeakMap<LevelDatabase, Promise<unknown>>();

/**
 * One database's writes, one after the other: classic-level runs each batch on libuv's thread
 * pool, where two batches in flight may commit in either order, and a message's later state must
 * never be overwritten by an earlier one.
 */
function serialWrite(level: LevelDatabase, operations: LevelOperation[]): Promise<void> {
  const previous = writeChains.get(level) ?? Promise.resolve();
  const written = previous.catch(() => {}).then(() => level.batch(operations));
  writeChains.set(level, written);
  return written;
}
