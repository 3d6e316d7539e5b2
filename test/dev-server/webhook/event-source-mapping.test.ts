import { DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, type ExpectStatic, expect, it } from 'vitest';
import { localAwsCredentials, startDynamoDb } from '../../../dev-server/dynamodb.ts';
import { startEventSourceMapping } from '../../../dev-server/webhook/event-source-mapping.ts';
import { openLocalQueue } from '../../../dev-server/webhook/local-queue.ts';
import { type EventPattern, matchesPattern } from '../../../dev-server/webhook/pipe.ts';
import { attachTableStream, type TableStream } from '../../../dev-server/webhook/table-stream.ts';

const { region, accessKeyId, secretAccessKey } = localAwsCredentials;

/**
 * A stand-in SQS-triggered function, told by each message's body what to do: `ok` succeeds, `fail`
 * is reported in batchItemFailures, `throw` fails the whole invocation, `slow` takes a second.
 */
async function batchHandler(event: SQSEvent): Promise<SQSBatchResponse> {
  const bodies = event.Records.map(({ body }) => body);
  if (bodies.includes('throw')) throw new Error('the function failed');
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
  // No item is written in these tests: the stream stays empty, and the loop only runs batches.
  let stream: TableStream;
  const stops: (() => Promise<void>)[] = [];
  let queues = 0;

  beforeAll(async () => {
    dynamodb = await startDynamoDb({ tableName: 'plants' });
    stream = await attachTableStream(dynamodb.level, { tableName: 'plants', region });
  });

  afterAll(async () => {
    await Promise.all(stops.map((stop) => stop()));
    stream?.detach();
    await dynamodb?.close();
  });

  /**
   * A queue of its own mapped to the fixture function, with what the mapping does with them seen
   * from outside: the events handed in, the instances made and closed, and the most invocations
   * one instance ran at once.
   */
  async function mapped(expect: ExpectStatic, { visibilityTimeoutSeconds = 1 } = {}) {
    queues += 1;
    const queue = await openLocalQueue(dynamodb.level, {
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
      stream,
      filter: {},
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

  it('leaves the whole batch to come back when the function throws', async ({ expect }) => {
    const { queue, invocations } = await mapped(expect);
    await queue.send(['ok', 'throw']);

    await expect.poll(() => invocations.length, { timeout: 5_000 }).toBe(2);

    expect(invocations.map((event) => event.Records.length)).toEqual([2, 2]);
  });

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

describe('startEventSourceMapping, its pipe step (the stream to the queue, with a filter)', () => {
  it('moves each record the filter keeps to the queue, as its JSON, and trims every record it read', async () => {
    const dynamodb = await startDynamoDb({ tableName: 'plants' });
    const stream = await attachTableStream(dynamodb.level, { tableName: 'plants', region });
    const client = new DynamoDBClient({
      region,
      endpoint: dynamodb.endpoint,
      credentials: { accessKeyId, secretAccessKey },
    });
    const queue = await openLocalQueue(dynamodb.level, {
      name: 'piped',
      visibilityTimeoutSeconds: 600,
      maxReceiveCount: 10,
      deadLetter: async () => {},
    });
    const filter: EventPattern = {
      dynamodb: { NewImage: { name: { S: [{ 'anything-but': 'Hidden' }] } } },
    };
    // Every batch fails, so that the messages stay to be read.
    const mapping = startEventSourceMapping({
      stream,
      filter,
      queue,
      newInstance: () => ({
        handler: async () => {
          throw new Error('kept');
        },
        close: () => {},
      }),
      settings: { batchSize: 10, maxConcurrency: 1, region },
      log: () => {},
    });
    try {
      for (const [index, name] of ['Fern', 'Hidden', 'Ivy'].entries()) {
        await client.send(
          new PutItemCommand({
            TableName: 'plants',
            Item: { id: { N: String(index) }, name: { S: name } },
          }),
        );
      }

      await expect.poll(() => queue.bodies().length, { timeout: 5_000 }).toBe(2);
      await expect.poll(() => stream.read(10)).toEqual([]);
      const records = queue.bodies().map((body) => JSON.parse(body));
      expect(records.map((record) => record.dynamodb.NewImage.name.S)).toEqual(['Fern', 'Ivy']);
      expect(records.every((record) => matchesPattern(filter, record))).toBe(true);
    } finally {
      await mapping.stop();
      stream.detach();
      client.destroy();
      await dynamodb.close();
    }
  });
});
