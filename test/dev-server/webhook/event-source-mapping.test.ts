import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, type ExpectStatic, expect, it } from 'vitest';
import { localAwsCredentials, startDynamoDb } from '../../../dev-server/dynamodb.ts';
import {
  failedMessageIds,
  startEventSourceMapping,
} from '../../../dev-server/webhook/event-source-mapping.ts';
import { LocalQueue } from '../../../dev-server/webhook/local-queue.ts';

const { region } = localAwsCredentials;

/**
 * A stand-in SQS-triggered function, told by each message's body what to do: `ok` succeeds, `fail`
 * is reported in batchItemFailures, `throw` fails the whole invocation, `invalid` answers with a
 * failure that names no message, `slow` takes a second.
 */
async function batchHandler(event: SQSEvent): Promise<SQSBatchResponse> {
  const bodies = event.Records.map(({ body }) => body);
  if (bodies.includes('throw')) throw new Error('the function failed');
  if (bodies.includes('invalid')) return { batchItemFailures: [{ itemIdentifier: '' }] };
  if (bodies.includes('slow')) await new Promise((resolve) => setTimeout(resolve, 1_000));
  return {
    batchItemFailures: event.Records.filter(({ body }) => body === 'fail').map(({ messageId }) => ({
      itemIdentifier: messageId,
    })),
  };
}

// Side by side: each test has a queue and a mapping of its own, and waits on visibility timeouts.
describe.concurrent('startEventSourceMapping (Lambda SQS event source mapping with ReportBatchItemFailures)', () => {
  let dynamodb: Awaited<ReturnType<typeof startDynamoDb>>;
  const stops: (() => Promise<void>)[] = [];
  let queues = 0;

  beforeAll(async () => {
    dynamodb = await startDynamoDb({ tableName: 'plants' });
  });

  afterAll(async () => {
    await Promise.all(stops.map((stop) => stop()));
    await dynamodb?.close();
  });

  /**
   * A queue of its own mapped to the fixture function, with what the mapping does with them seen
   * from outside: the events handed in, the instances made and closed, and the most invocations
   * one instance ran at once.
   */
  async function mapped(expect: ExpectStatic, { visibilityTimeoutSeconds = 1 } = {}) {
    queues += 1;
    const queue = await LocalQueue.open(dynamodb.level, {
      name: `mapped-${queues}`,
      visibilityTimeoutSeconds,
      maxReceiveCount: 10,
      deadLetter: async () => {},
    });
    const invocations: SQSEvent[] = [];
    const instances = { made: 0, closed: 0, mostAtOnce: 0 };
    const newInstance = () => {
      instances.made += 1;
      let atOnce = 0;
      return {
        handler: async (event: SQSEvent) => {
          invocations.push(event);
          atOnce += 1;
          instances.mostAtOnce = Math.max(instances.mostAtOnce, atOnce);
          try {
            return await batchHandler(event);
          } finally {
            atOnce -= 1;
          }
        },
        close: () => {
          instances.closed += 1;
        },
      };
    };
    const mapping = startEventSourceMapping({
      queue,
      newInstance,
      settings: { batchSize: 10, maxConcurrency: 5, region },
      log: () => {},
    });
    stops.push(() => mapping.stop());
    const counts = () => expect.poll(() => queue.counts(), { timeout: 5_000, interval: 5 });
    return { queue, invocations, instances, counts, stop: () => mapping.stop() };
  }

  it('invokes the function with the SQS event Lambda builds, and deletes the message', async ({
    expect,
  }) => {
    const { queue, invocations, counts } = await mapped(expect);
    await queue.send(['ok']);

    await counts().toEqual({ visible: 0, inFlight: 0 });

    const [record] = invocations[0]?.Records ?? [];
    expect(record).toEqual({
      messageId: expect.any(String),
      receiptHandle: expect.any(String),
      body: 'ok',
      attributes: {
        ApproximateReceiveCount: '1',
        SentTimestamp: expect.stringMatching(/^\d{13}$/),
        SenderId: expect.any(String),
        ApproximateFirstReceiveTimestamp: expect.stringMatching(/^\d{13}$/),
      },
      messageAttributes: {},
      md5OfBody: '444bcb3a3fcf8389296c49467f27e1d6',
      eventSource: 'aws:sqs',
      eventSourceARN: `arn:aws:sqs:${region}:000000000000:${queue.name}`,
      awsRegion: region,
    });
  });

  it('deletes the messages the function did not report, and leaves the reported one to come back', async ({
    expect,
  }) => {
    const { queue, invocations, counts } = await mapped(expect);
    await queue.send(['ok', 'fail', 'ok']);

    await counts().toEqual({ visible: 0, inFlight: 1 });
    await expect.poll(() => invocations.length, { timeout: 5_000 }).toBe(2);

    const retried = invocations[1]?.Records ?? [];
    // Received again once its visibility timeout ends, with one more receive.
    expect(retried.map(({ body }) => body)).toEqual(['fail']);
    expect(retried[0]?.attributes.ApproximateReceiveCount).toBe('2');
  });

  it.for([
    ['throws', 'throw'],
    ['answers with a failure that names no message of the batch', 'invalid'],
  ])(
    'leaves the whole batch to come back when the function %s',
    async ([, body = ''], { expect }) => {
      const { queue, invocations } = await mapped(expect);
      await queue.send(['ok', body]);

      await expect.poll(() => invocations.length, { timeout: 5_000 }).toBe(2);

      expect(invocations.map((event) => event.Records.length)).toEqual([2, 2]);
    },
  );

  it('runs batches side by side: a slow batch holds up no other', async ({ expect }) => {
    const { queue, counts } = await mapped(expect, { visibilityTimeoutSeconds: 10 });
    await queue.send(['slow']);
    await counts().toEqual({ visible: 0, inFlight: 1 });

    await queue.send(['ok']);

    // Done and deleted while the slow one is still running.
    await expect.poll(() => queue.bodies(), { interval: 5 }).toEqual(['slow']);
    await counts().toEqual({ visible: 0, inFlight: 0 });
  });

  it('runs each batch in an instance of its own, made when none is free and then kept, one invocation at a time', async ({
    expect,
  }) => {
    const { queue, instances, counts } = await mapped(expect, { visibilityTimeoutSeconds: 10 });
    for (const _ of [1, 2, 3]) {
      await queue.send(['slow']);
      await expect.poll(() => queue.counts().visible, { interval: 5 }).toBe(0);
    }
    await counts().toEqual({ visible: 0, inFlight: 0 });

    await queue.send(['slow']);
    await counts().toEqual({ visible: 0, inFlight: 0 });

    expect(instances).toEqual({ made: 3, closed: 0, mostAtOnce: 1 });
  });

  it('closes every instance when stopped, and deletes nothing of a batch still running', async ({
    expect,
  }) => {
    const { queue, instances, counts, stop } = await mapped(expect, {
      visibilityTimeoutSeconds: 10,
    });
    await queue.send(['slow']);
    await counts().toEqual({ visible: 0, inFlight: 1 });

    await stop();

    expect(instances).toEqual({ made: 1, closed: 1, mostAtOnce: 1 });
    expect(queue.bodies()).toEqual(['slow']);
  });
});

describe('failedMessageIds (what a partial batch response reports)', () => {
  const batch = [{ messageId: 'a' }, { messageId: 'b' }];

  it.each([
    ['undefined', undefined, []],
    ['null', null, []],
    ['an empty object', {}, []],
    ['null batchItemFailures', { batchItemFailures: null }, []],
    ['an empty list', { batchItemFailures: [] }, []],
    ['one failure', { batchItemFailures: [{ itemIdentifier: 'b' }] }, ['b']],
  ])('takes %s as these failures', (_case, response, failed) => {
    expect(failedMessageIds(response, batch)).toEqual(new Set(failed));
  });

  it.each([
    ['a string', 'done'],
    ['a list', []],
    ['batchItemFailures of another type', { batchItemFailures: 'b' }],
    ['an empty itemIdentifier', { batchItemFailures: [{ itemIdentifier: '' }] }],
    ['a null itemIdentifier', { batchItemFailures: [{ itemIdentifier: null }] }],
    ['a misspelled key', { batchItemFailures: [{ itemIdentifer: 'b' }] }],
    ['an id not in the batch', { batchItemFailures: [{ itemIdentifier: 'c' }] }],
  ])('takes %s as a complete failure', (_case, response) => {
    expect(failedMessageIds(response, batch)).toBe('all');
  });
});
