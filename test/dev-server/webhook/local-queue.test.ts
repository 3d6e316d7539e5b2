import type { LevelDatabase } from 'dynalite/db/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localAwsCredentials, startDynamoDb } from '../../../dev-server/dynamodb.ts';
import {
  type AwsJsonEndpoint,
  type AwsServiceError,
  startAwsJsonEndpoint,
} from '../../../dev-server/webhook/aws-json-endpoint.ts';
import { LocalQueue } from '../../../dev-server/webhook/local-queue.ts';
import { secretsManagerService } from '../../../dev-server/webhook/secrets-manager-service.ts';
import { sqsService } from '../../../dev-server/webhook/sqs-service.ts';
import {
  AwsServiceError as ClientServiceError,
  createAwsJsonClient,
} from '../../../functions/connections/aws-json-client.ts';
import { tempDataDir } from '../../support/local-api-fixture.ts';

const { region, ...credentials } = localAwsCredentials;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
let queues = 0;

/** A queue named `name` with a DLQ after two receives, in `level`. */
async function queuesOn(level: LevelDatabase, name: string, timeScale?: number) {
  const deadLetterQueue = await LocalQueue.open(
    level,
    { name: `${name}-dlq`, region, visibilityTimeoutSeconds: 30 },
    'http://sqs.local',
  );
  const queue = await LocalQueue.open(
    level,
    {
      name,
      region,
      visibilityTimeoutSeconds: 1,
      redrive: { maxReceiveCount: 2, deadLetterQueue },
      ...(timeScale !== undefined && { timeScale }),
    },
    'http://sqs.local',
  );
  return { queue, deadLetterQueue };
}

/** The same, in a dynalite LevelDB of its own, in memory. */
async function openQueues(timeScale?: number) {
  queues += 1;
  const dynamodb = await startDynamoDb({ tableName: 'plants' });
  return { dynamodb, ...(await queuesOn(dynamodb.level, `queue-${queues}`, timeScale)) };
}

describe('LocalQueue (the SQS stand-in)', () => {
  it('hides a received message for the visibility timeout, then gives it again with a new receipt handle and one more receive', async () => {
    const { queue, dynamodb } = await openQueues();
    try {
      await queue.send(['one']);

      const [first] = await queue.receive(10);
      const meanwhile = await queue.receive(10);
      await pause(1_100);
      const [again] = await queue.receive(10);

      expect(first).toMatchObject({ body: 'one', receiveCount: 1 });
      expect(first?.md5OfBody).toBe('f97c5d29941bfb1b2fdab0874906ab82');
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

  it('sets the time left with ChangeMessageVisibility, and refuses what SQS refuses', async () => {
    const { queue, dynamodb } = await openQueues(0.001);
    try {
      await queue.send(['three']);
      const [message] = await queue.receive(1);
      const handle = message?.receiptHandle ?? '';

      await queue.changeVisibility(handle, 300);
      const held = queue.counts();
      await pause(400);
      const back = queue.counts();
      const refusals = await Promise.all(
        [
          () => queue.changeVisibility(handle, 10),
          () => queue.changeVisibility('not-a-receipt-handle', 10),
          () =>
            queue.receive(1).then(([m]) => queue.changeVisibility(m?.receiptHandle ?? '', 43_201)),
        ].map((call) =>
          call().then(
            () => undefined,
            (error: AwsServiceError) => error.type,
          ),
        ),
      );

      expect(held).toEqual({ visible: 0, inFlight: 1 });
      expect(back).toEqual({ visible: 1, inFlight: 0 });
      expect(refusals).toEqual([
        'MessageNotInflight',
        'ReceiptHandleIsInvalid',
        'InvalidParameterValue',
      ]);
    } finally {
      await dynamodb.close();
    }
  });

  it('moves a message to the DLQ on the receive after maxReceiveCount, whole', async () => {
    const { queue, deadLetterQueue, dynamodb } = await openQueues();
    try {
      await queue.send(['poison']);
      const [first] = await queue.receive(1, 0);
      await queue.receive(1, 0);

      const third = await queue.receive(1, 0);
      const [dead] = await deadLetterQueue.receive(1);

      expect(third).toEqual([]);
      expect(queue.counts()).toEqual({ visible: 0, inFlight: 0 });
      expect(dead).toMatchObject({ messageId: first?.messageId, body: 'poison', receiveCount: 3 });
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

describe('the SQS and Secrets Manager endpoints (AWS JSON protocol over loopback)', () => {
  let dynamodb: Awaited<ReturnType<typeof openQueues>>;
  let sqs: AwsJsonEndpoint;
  let secretsManager: AwsJsonEndpoint;
  let secretArn: string;

  beforeAll(async () => {
    dynamodb = await openQueues();
    sqs = await startAwsJsonEndpoint(sqsService([dynamodb.queue, dynamodb.deadLetterQueue]), {
      region,
      credentials,
    });
    const secrets = secretsManagerService([{ name: 'hook-secret', value: 'whsec_abc' }], region);
    secretArn = secrets.arnOf('hook-secret');
    secretsManager = await startAwsJsonEndpoint(secrets, { region, credentials });
  });

  afterAll(async () => {
    await sqs?.close();
    await secretsManager?.close();
    await dynamodb?.dynamodb.close();
  });

  /** The function's own client (SigV4 by aws4), as the deliverer calls the services. */
  const client = (
    endpoint: string,
    service: 'sqs' | 'secretsmanager',
    secretAccessKey: string = credentials.secretAccessKey,
  ) =>
    createAwsJsonClient({
      endpoint: new URL(endpoint),
      region,
      credentials: { ...credentials, secretAccessKey },
      signingName: service,
      targetPrefix: service === 'sqs' ? 'AmazonSQS' : 'secretsmanager',
      jsonVersion: service === 'sqs' ? '1.0' : '1.1',
      maxAttempts: 1,
    });
  const failureOf = (call: Promise<unknown>) =>
    call.then(
      () => 'succeeded',
      (error: unknown) =>
        error instanceof ClientServiceError ? `${error.statusCode} ${error.type}` : String(error),
    );

  it('changes a message visibility, and answers a bad handle with the SQS error', async () => {
    const call = client(sqs.url, 'sqs');
    const QueueUrl = dynamodb.queue.url;
    await call('SendMessage', { QueueUrl, MessageBody: 'hello' });
    const received = await call('ReceiveMessage', { QueueUrl, MaxNumberOfMessages: 10 });
    const [message] = received.Messages as { ReceiptHandle: string; Body: string }[];

    const changed = await call('ChangeMessageVisibility', {
      QueueUrl,
      ReceiptHandle: message?.ReceiptHandle,
      VisibilityTimeout: 0,
    });
    const refused = await failureOf(
      call('ChangeMessageVisibility', { QueueUrl, ReceiptHandle: 'nope', VisibilityTimeout: 5 }),
    );
    const attributes = await call('GetQueueAttributes', { QueueUrl });

    expect(message?.Body).toBe('hello');
    expect(changed).toEqual({});
    expect(refused).toBe('400 ReceiptHandleIsInvalid');
    expect(attributes.Attributes).toMatchObject({
      ApproximateNumberOfMessages: '1',
      QueueArn: dynamodb.queue.arn,
      RedrivePolicy: JSON.stringify({
        deadLetterTargetArn: dynamodb.deadLetterQueue.arn,
        maxReceiveCount: 2,
      }),
    });
  });

  it('redrives the DLQ to its source queue with StartMessageMoveTask', async () => {
    const call = client(sqs.url, 'sqs');
    await dynamodb.deadLetterQueue.send(['dead 1', 'dead 2']);

    await call('StartMessageMoveTask', { SourceArn: dynamodb.deadLetterQueue.arn });

    expect(dynamodb.deadLetterQueue.bodies()).toEqual([]);
    expect(dynamodb.queue.bodies()).toEqual(expect.arrayContaining(['dead 1', 'dead 2']));
  });

  it('gives the secret by its ARN or name, and ResourceNotFoundException for any other id', async () => {
    const call = client(secretsManager.url, 'secretsmanager');

    const byArn = await call('GetSecretValue', { SecretId: secretArn });
    const byName = await call('GetSecretValue', { SecretId: 'hook-secret' });
    const unknown = await failureOf(call('GetSecretValue', { SecretId: 'other' }));

    expect(byArn).toMatchObject({ ARN: secretArn, Name: 'hook-secret', SecretString: 'whsec_abc' });
    expect(byArn.VersionStages).toEqual(['AWSCURRENT']);
    expect(byName.SecretString).toBe('whsec_abc');
    expect(unknown).toBe('400 ResourceNotFoundException');
  });

  it('refuses, as AWS does, a request signed for another service, with another key, or not signed', async () => {
    const QueueUrl = dynamodb.queue.url;
    const otherService = await failureOf(
      createAwsJsonClient({
        endpoint: new URL(sqs.url),
        region,
        credentials,
        signingName: 'secretsmanager',
        targetPrefix: 'AmazonSQS',
        jsonVersion: '1.0',
        maxAttempts: 1,
      })('GetQueueAttributes', { QueueUrl }),
    );
    const otherKey = await failureOf(
      client(sqs.url, 'sqs', 'not-the-secret')('GetQueueAttributes', { QueueUrl }),
    );
    const unsigned = await fetch(sqs.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-amz-json-1.0',
        'x-amz-target': 'AmazonSQS.GetQueueAttributes',
      },
      body: JSON.stringify({ QueueUrl }),
    });

    expect(otherService).toBe('403 InvalidSignatureException');
    expect(otherKey).toBe('403 InvalidSignatureException');
    expect(unsigned.status).toBe(403);
    expect(unsigned.headers.get('x-amzn-query-error')).toBe(
      'MissingAuthenticationTokenException;Sender',
    );
    expect(await unsigned.json()).toEqual({
      __type: 'com.amazonaws.sqs#MissingAuthenticationTokenException',
      message: 'Request is missing Authentication Token',
    });
  });
});
