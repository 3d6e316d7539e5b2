import { randomBytes, randomUUID } from 'node:crypto';
import type { LevelDatabase, LevelOperation } from 'dynalite/db/index.js';

interface QueuedMessage {
  readonly messageId: string;
  readonly body: string;
  readonly sentTimestamp: number;
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

interface QueueSettings {
  readonly name: string;
  /** How long a receive hides a message: what brings back one that no batch finished with. */
  readonly visibilityTimeoutSeconds: number;
  /** The receive after this many moves the message to `deadLetter`, as SQS's redrive does. */
  readonly maxReceiveCount: number;
  /** Keeps the dead letters; only then does the queue forget them. */
  readonly deadLetter: (messages: readonly ReceivedMessage[]) => Promise<void>;
  /** Test-only: scales a retry's wait, not a receive's (a batch runs in real time). @default 1 */
  readonly timeScale?: number;
}

/** The webhook queue, kept in the table's LevelDB (docs/decisions/0106-local-queue.md). */
export async function openLocalQueue(level: LevelDatabase, settings: QueueSettings) {
  const { name, maxReceiveCount, deadLetter, timeScale = 1 } = settings;
  const prefix = `webhook~sqs~${name}~`;
  const messages = new Map<string, QueuedMessage>();
  for await (const [, value] of level.iterator({ gte: prefix, lt: `${prefix}\uffff` })) {
    const message = value as QueuedMessage;
    if (message.heldByReceive) {
      message.visibleAt = Math.min(message.visibleAt, Date.now());
      message.heldByReceive = false;
    }
    messages.set(message.messageId, message);
  }
  const put = (message: QueuedMessage): LevelOperation => ({
    type: 'put',
    key: `${prefix}${message.messageId}`,
    value: message,
  });
  const del = ({ messageId }: QueuedMessage): LevelOperation => ({
    type: 'del',
    key: `${prefix}${messageId}`,
  });
  // One write after the other: classic-level may commit two batches in flight in either order.
  let writes: Promise<unknown> = Promise.resolve();
  const write = (operations: LevelOperation[]): Promise<void> => {
    const written = writes.catch(() => {}).then(() => level.batch(operations));
    writes = written;
    return written;
  };
  const latest = (receiptHandle: string) => {
    const message = messages.get(receiptHandle.split('.')[0] ?? '');
    return message?.receiptHandle === receiptHandle ? message : undefined;
  };
  let onChange = () => {};

  return {
    name,
    /** Adds messages, in one atomic write with `alongside` (writes of the same database). */
    async send(bodies: readonly string[], alongside: readonly LevelOperation[] = []) {
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
      await write([...added.map(put), ...alongside]);
      for (const message of added) messages.set(message.messageId, message);
      onChange();
    },
    async receive(
      max: number,
      visibilityTimeoutSeconds = settings.visibilityTimeoutSeconds,
    ): Promise<ReceivedMessage[]> {
      const exhausted = (message: QueuedMessage, now: number) =>
        message.visibleAt <= now && message.receiveCount >= maxReceiveCount;
      const dead = [...messages.values()].filter((message) => exhausted(message, Date.now()));
      if (dead.length > 0) {
        // Kept there before it is deleted here: a crash in between keeps it twice, never not at all.
        await deadLetter(dead as ReceivedMessage[]);
        for (const message of dead) messages.delete(message.messageId);
        await write(dead.map(del));
      }
      const now = Date.now();
      const taken: QueuedMessage[] = [];
      for (const message of messages.values()) {
        if (taken.length >= max) break;
        if (message.visibleAt > now || exhausted(message, now)) continue;
        message.receiveCount += 1;
        message.firstReceiveTimestamp ??= now;
        message.receiptHandle = `${message.messageId}.${randomBytes(24).toString('base64url')}`;
        message.visibleAt = now + visibilityTimeoutSeconds * 1000;
        message.heldByReceive = true;
        taken.push(message);
      }
      if (taken.length > 0) await write(taken.map(put));
      return taken.map((message) => ({ ...message }) as ReceivedMessage);
    },
    async delete(receiptHandle: string) {
      const message = latest(receiptHandle);
      if (message === undefined) return;
      messages.delete(message.messageId);
      await write([del(message)]);
    },
    async changeVisibility(receiptHandle: string, seconds: number) {
      const message = latest(receiptHandle);
      if (message === undefined)
        throw new Error('The receipt handle is not the latest of a message');
      message.visibleAt = Date.now() + Math.round(seconds * 1000 * timeScale);
      message.heldByReceive = false;
      await write([put(message)]);
      onChange();
    },
    onChange(listener: () => void) {
      onChange = listener;
    },
    nextVisibleAt: () =>
      [...messages.values()].reduce((next, { visibleAt }) => Math.min(next, visibleAt), Infinity),
    counts() {
      const now = Date.now();
      const visible = [...messages.values()].filter(({ visibleAt }) => visibleAt <= now).length;
      return { visible, inFlight: messages.size - visible };
    },
    bodies: () => [...messages.values()].map(({ body }) => body),
  };
}
export type LocalQueue = Awaited<ReturnType<typeof openLocalQueue>>;
