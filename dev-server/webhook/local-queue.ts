import { randomBytes, randomUUID } from 'node:crypto';
import type { LevelDatabase, LevelOperation } from 'dynalite/db/index.js';

/** One message as a receive returns it, and as it is kept. */
export interface QueuedMessage {
  readonly messageId: string;
  readonly body: string;
  readonly sentTimestamp: number;
  /** `ApproximateReceiveCount`: the receives so far. */
  receiveCount: number;
  firstReceiveTimestamp?: number;
  /** Epoch ms. */
  visibleAt: number;
  /** The latest receive's: only it deletes or holds back the message. */
  receiptHandle?: string;
  /** Whether it is hidden by a receive (a batch holds it), not by a retry's wait. */
  heldByReceive: boolean;
}
export type ReceivedMessage = Readonly<Required<QueuedMessage>>;

export interface QueueSettings {
  /** Names the messages' keys in the database. */
  readonly name: string;
  /** How long a receive hides a message: what brings back one that no batch finished with. */
  readonly visibilityTimeoutSeconds: number;
  /** The receive after this many moves the message to `deadLetter`, as SQS's redrive does. */
  readonly maxReceiveCount: number;
  /** Keeps the dead letters; the queue forgets them only once it has. */
  readonly deadLetter: (messages: readonly ReceivedMessage[]) => Promise<void>;
  /**
   * Test-only: a retry's wait (`changeVisibility`) lasts this share of its seconds; a receive's
   * is not scaled, since it covers a batch, which runs in real time. @default 1
   */
  readonly timeScale?: number;
}

/**
 * The webhook queue, with what the deliverer's retries need of SQS: visibility, receipt handles,
 * `maxReceiveCount`. The messages live in the table's LevelDB, each change written before the call
 * that made it returns, so it stays across a SIGKILL (docs/decisions/0106-local-queue.md).
 */
export class LocalQueue {
  readonly name: string;
  readonly #level: LevelDatabase;
  readonly #settings: QueueSettings;
  readonly #prefix: string;
  readonly #messages = new Map<string, QueuedMessage>();
  #writes: Promise<unknown> = Promise.resolve();
  #onChange = () => {};

  private constructor(level: LevelDatabase, settings: QueueSettings) {
    this.name = settings.name;
    this.#level = level;
    this.#settings = settings;
    this.#prefix = `webhook~sqs~${settings.name}~`;
  }

  /** The queue, with the messages kept from an earlier run. */
  static async open(level: LevelDatabase, settings: QueueSettings): Promise<LocalQueue> {
    const queue = new LocalQueue(level, settings);
    for await (const [, value] of level.iterator({
      gte: queue.#prefix,
      lt: `${queue.#prefix}\uffff`,
    })) {
      const message = value as QueuedMessage;
      if (message.heldByReceive) {
        message.visibleAt = Math.min(message.visibleAt, Date.now());
        message.heldByReceive = false;
      }
      queue.#messages.set(message.messageId, message);
    }
    return queue;
  }

  /** Adds messages, in one atomic write with `alongside` (writes of the same database). */
  async send(bodies: readonly string[], alongside: readonly LevelOperation[] = []): Promise<void> {
    const now = Date.now();
    const added = bodies.map(
      (body): QueuedMessage => ({
        messageId: randomUUID(),
        body,
        sentTimestamp: now,
        receiveCount: 0,
        visibleAt: now,
        heldByReceive: false,
      }),
    );
    await this.#write([...added.map((message) => this.#put(message)), ...alongside]);
    for (const message of added) this.#messages.set(message.messageId, message);
    this.#onChange();
  }

  /** Up to `max` visible messages, now hidden; the exhausted ones go to the dead letters first. */
  async receive(
    max: number,
    visibilityTimeoutSeconds = this.#settings.visibilityTimeoutSeconds,
  ): Promise<ReceivedMessage[]> {
    const { maxReceiveCount, deadLetter } = this.#settings;
    const exhausted = (message: QueuedMessage, now: number) =>
      message.visibleAt <= now && message.receiveCount >= maxReceiveCount;
    const dead = [...this.#messages.values()].filter((message) => exhausted(message, Date.now()));
    if (dead.length > 0) {
      // Kept there before it is deleted here: a crash in between keeps it twice, never not at all.
      await deadLetter(dead as ReceivedMessage[]);
      for (const message of dead) this.#messages.delete(message.messageId);
      await this.#write(dead.map((message) => this.#del(message)));
    }
    const now = Date.now();
    const taken: QueuedMessage[] = [];
    for (const message of this.#messages.values()) {
      if (taken.length >= max) break;
      if (message.visibleAt > now || exhausted(message, now)) continue;
      message.receiveCount += 1;
      message.firstReceiveTimestamp ??= now;
      message.receiptHandle = `${message.messageId}.${randomBytes(24).toString('base64url')}`;
      message.visibleAt = now + visibilityTimeoutSeconds * 1000;
      message.heldByReceive = true;
      taken.push(message);
    }
    if (taken.length > 0) await this.#write(taken.map((message) => this.#put(message)));
    return taken.map((message) => ({ ...message }) as ReceivedMessage);
  }

  /** Only the latest receipt handle deletes; any other does nothing. */
  async delete(receiptHandle: string): Promise<void> {
    const message = this.#latest(receiptHandle);
    if (message === undefined) return;
    this.#messages.delete(message.messageId);
    await this.#write([this.#del(message)]);
  }

  /** The message becomes visible `seconds` from now (the deliverer's `holdBack`). */
  async changeVisibility(receiptHandle: string, seconds: number): Promise<void> {
    const message = this.#latest(receiptHandle);
    if (message === undefined) throw new Error('The receipt handle is not the latest of a message');
    message.visibleAt = Date.now() + Math.round(seconds * 1000 * (this.#settings.timeScale ?? 1));
    message.heldByReceive = false;
    await this.#write([this.#put(message)]);
    this.#onChange();
  }

  /** Calls `listener` after each send or change of visibility: a receive may find more. */
  onChange(listener: () => void): void {
    this.#onChange = listener;
  }

  /** When the first message is visible: the past if one is, infinity if there is none. */
  nextVisibleAt(): number {
    let next = Number.POSITIVE_INFINITY;
    for (const message of this.#messages.values()) next = Math.min(next, message.visibleAt);
    return next;
  }

  /** Visible messages, and hidden ones not yet deleted. */
  counts(): { visible: number; inFlight: number } {
    const now = Date.now();
    let visible = 0;
    for (const message of this.#messages.values()) if (message.visibleAt <= now) visible += 1;
    return { visible, inFlight: this.#messages.size - visible };
  }

  /** Every message's body, oldest first. */
  bodies(): string[] {
    return [...this.#messages.values()].map(({ body }) => body);
  }

  #latest(receiptHandle: string): QueuedMessage | undefined {
    const message = this.#messages.get(receiptHandle.split('.')[0] ?? '');
    return message?.receiptHandle === receiptHandle ? message : undefined;
  }

  /** One write after the other: classic-level may commit two batches in flight in either order. */
  #write(operations: LevelOperation[]): Promise<void> {
    const written = this.#writes.catch(() => {}).then(() => this.#level.batch(operations));
    this.#writes = written;
    return written;
  }

  #put(message: QueuedMessage): LevelOperation {
    return { type: 'put', key: `${this.#prefix}${message.messageId}`, value: message };
  }

  #del(message: QueuedMessage): LevelOperation {
    return { type: 'del', key: `${this.#prefix}${message.messageId}` };
  }
}
