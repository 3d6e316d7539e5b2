import type { SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, type ExpectStatic, expect, it } from 'vitest';
import { localAwsCredentials, startDynamoDb } from '../../../dev-server/dynamodb.ts';
import { type LocalFunction, startWorker } from '../../../dev-server/function-host.ts';
import {
  failedMessageIds,
  startEventSourceMapping,
} from '../../../dev-server/webhook/event-source-mapping.ts';
import { LocalQueue } from '../../../dev-server/webhook/local-queue.ts';

const { region } = localAwsCredentials;
const handlerUrl = new URL(
  '../../support/dev-server-handlers/sqs-batch-handler.ts',
  import.meta.url,
).href;

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
   * A queue of its own mapped to the fixture function, each execution environment a worker, with
   * what the mapping does with them seen from outside: the events handed in, the environments
   * started and stopped, and the most invocations one environment ran at once.
   */
  async function mapped(
    expect: ExpectStatic,
    { visibilityTimeoutSeconds = 1, timeoutSeconds = 5 } = {},
  ) {
    queues += 1;
    const queue = await LocalQueue.open(
      dynamodb.level,
      { name: `mapped-${queues}`, region, visibilityTimeoutSeconds },
      'http://sqs.local',
    );
    const invocations: SQSEvent[] = [];
    const environments = { started: 0, stopped: 0, mostAtOnce: 0 };
    const startEnvironment = async (): Promise<LocalFunction<SQSEvent>> => {
      const worker = await startWorker<SQSEvent>(
        { handlerUrl, functionName: 'batch', memoryMb: 128, timeoutSeconds, env: {} },
        () => {},
      );
      environments.started += 1;
      let atOnce = 0;
      return {
        ...worker,
        run: async (event) => {
          invocations.push(event);
          atOnce += 1;
          environments.mostAtOnce = Math.max(environments.mostAtOnce, atOnce);
          try {
            return await worker.run(event);
          } finally {
            atOnce -= 1;
          }
        },
        stop: () => {
          environments.stopped += 1;
          return worker.stop();
        },
      };
    };
    const mapping = await startEventSourceMapping({
      queue,
      startEnvironment,
      settings: { batchSize: 10, maxConcurrency: 5, region },
      log: () => {},
    });
    stops.push(() => mapping.stop());
    const counts = () => expect.poll(() => queue.counts(), { timeout: 5_000, interval: 5 });
    return { queue, invocations, environments, counts };
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
      eventSourceARN: queue.arn,
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

  it('runs each batch in an execution environment of its own, started when none is free and then kept, one invocation at a time', async ({
    expect,
  }) => {
    const { queue, environments, counts } = await mapped(expect, { visibilityTimeoutSeconds: 10 });
    for (const _ of [1, 2, 3]) {
      await queue.send(['slow']);
      await expect.poll(() => queue.counts().visible, { interval: 5 }).toBe(0);
    }
    await counts().toEqual({ visible: 0, inFlight: 0 });

    await queue.send(['slow']);
    await counts().toEqual({ visible: 0, inFlight: 0 });

    expect(environments).toEqual({ started: 3, stopped: 0, mostAtOnce: 1 });
  });

  it('replaces an environment whose invocation timed out, which may still be running it', async ({
    expect,
  }) => {
    const { queue, invocations, environments } = await mapped(expect, {
      visibilityTimeoutSeconds: 10,
      timeoutSeconds: 0.5,
    });
    await queue.send(['slow']);
    await expect.poll(() => environments.stopped, { interval: 5 }).toBe(1);

    await queue.send(['ok']);

    await expect.poll(() => queue.bodies(), { interval: 5 }).toEqual(['slow']);
    expect(invocations).toHaveLength(2);
    expect(environments).toEqual({ started: 2, stopped: 1, mostAtOnce: 1 });
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
