import type { LevelDatabase } from 'dynalite/db/index.js';
import { describe, expect, it } from 'vitest';
import { startDynamoDb } from '../../../dev-server/dynamodb.ts';
import { openLocalQueue, type ReceivedMessage } from '../../../dev-server/webhook/local-queue.ts';
import { tempDataDir } from '../../support/local-api-fixture.ts';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
let queues = 0;

/**
 * A queue named `name` in `level` that dead-letters after two receives, with what it dead-lettered;
 * `failing` makes keeping a dead letter fail.
 */
async function queuesOn(level: LevelDatabase, name: string, timeScale?: number) {
  const deadLetters: ReceivedMessage[] = [];
  const dead = { failing: false };
  const queue = await openLocalQueue(level, {
    name,
    visibilityTimeoutSeconds: 1,
    maxReceiveCount: 2,
    deadLetter: async (messages) => {
      if (dead.failing) throw new Error('the disk is full');
      deadLetters.push(...messages);
    },
    ...(timeScale !== undefined && { timeScale }),
  });
  return { queue, deadLetters, dead };
}

/** The same, in a dynalite LevelDB of its own, in memory. */
async function openQueues(timeScale?: number) {
  queues += 1;
  const dynamodb = await startDynamoDb({ tableName: 'plants' });
  return { dynamodb, ...(await queuesOn(dynamodb.level, `queue-${queues}`, timeScale)) };
}

describe('LocalQueue (the webhook queue, as SQS behaves for the deliverer)', () => {
  it('hides a received message for the visibility timeout, then gives it again with a new receipt handle and one more receive', async () => {
    const { queue, dynamodb } = await openQueues();
    try {
      await queue.send(['one']);

      const [first] = await queue.receive(10);
      const meanwhile = await queue.receive(10);
      await pause(1_100);
      const [again] = await queue.receive(10);

      expect(first).toMatchObject({ body: 'one', receiveCount: 1 });
      expect(meanwhile).toEqual([]);
      expect(again).toMatchObject({ messageId: first?.messageId, receiveCount: 2 });
      expect(again?.receiptHandle).not.toBe(first?.receiptHandle);
      expect(again?.firstReceiveTimestamp).toBe(first?.firstReceiveTimestamp);
    } finally {
      await dynamodb.close();
    }
  });

  it('deletes a message with its latest receipt handle only; an older one succeeds and deletes nothing', async () => {
    const { queue, dynamodb } = await openQueues();
    try {
      await queue.send(['two']);
      const [first] = await queue.receive(1, 0);
      const [second] = await queue.receive(1, 0);

      await queue.delete(first?.receiptHandle ?? '');
      const stillThere = queue.counts();
      await queue.delete(second?.receiptHandle ?? '');

      expect(stillThere).toEqual({ visible: 1, inFlight: 0 });
      expect(queue.counts()).toEqual({ visible: 0, inFlight: 0 });
    } finally {
      await dynamodb.close();
    }
  });

  it('sets the time left with ChangeMessageVisibility, by its latest receipt handle only', async () => {
    const { queue, dynamodb } = await openQueues(0.001);
    try {
      await queue.send(['three']);
      const [message] = await queue.receive(1);
      const handle = message?.receiptHandle ?? '';

      await queue.changeVisibility(handle, 300);
      const held = queue.counts();
      await pause(400);
      const back = queue.counts();
      await queue.receive(1);
      const refusals = await Promise.all(
        [handle, 'not-a-receipt-handle'].map((stale) =>
          queue.changeVisibility(stale, 10).then(
            () => undefined,
            (error: Error) => error.message,
          ),
        ),
      );

      expect(held).toEqual({ visible: 0, inFlight: 1 });
      expect(back).toEqual({ visible: 1, inFlight: 0 });
      expect(refusals).toEqual([
        'The receipt handle is not the latest of a message',
        'The receipt handle is not the latest of a message',
      ]);
    } finally {
      await dynamodb.close();
    }
  });

  it('dead-letters a message on the receive after maxReceiveCount, whole, and only then forgets it', async () => {
    const { queue, deadLetters, dead, dynamodb } = await openQueues();
    try {
      await queue.send(['poison']);
      const [first] = await queue.receive(1, 0);
      await queue.receive(1, 0);

      dead.failing = true;
      const refused = await queue.receive(1, 0).catch((error: Error) => error.message);
      const kept = queue.counts();
      dead.failing = false;
      const third = await queue.receive(1, 0);

      expect(refused).toBe('the disk is full');
      expect(kept).toEqual({ visible: 1, inFlight: 0 });
      expect(third).toEqual([]);
      expect(queue.counts()).toEqual({ visible: 0, inFlight: 0 });
      expect(deadLetters).toEqual([
        expect.objectContaining({ messageId: first?.messageId, body: 'poison', receiveCount: 2 }),
      ]);
    } finally {
      await dynamodb.close();
    }
  });

  it('keeps its messages in the data directory: a retry wait goes on after a restart, a receive that was running does not', async () => {
    const { dir, remove } = await tempDataDir();
    try {
      const before = await startDynamoDb({ dir, tableName: 'plants' });
      const { queue } = await queuesOn(before.level, 'kept');
      await queue.send(['waiting', 'running', 'deleted', 'new']);
      const [waiting, running, deleted] = await queue.receive(3, 600);
      await queue.changeVisibility(waiting?.receiptHandle ?? '', 600);
      await queue.delete(deleted?.receiptHandle ?? '');
      await before.close();

      const after = await startDynamoDb({ dir, tableName: 'plants' });
      const { queue: again } = await queuesOn(after.level, 'kept');
      const visible = await again.receive(10);
      await after.close();

      expect(running?.body).toBe('running');
      expect(visible.map(({ body }) => body).sort()).toEqual(['new', 'running']);
      expect(visible.find(({ body }) => body === 'running')?.receiveCount).toBe(2);
      expect(again.counts()).toEqual({ visible: 0, inFlight: 3 });
    } finally {
      await remove();
    }
  });
});
