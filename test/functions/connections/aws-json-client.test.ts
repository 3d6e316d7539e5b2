import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AwsJsonClientOptions,
  AwsServiceError,
  AwsUnavailableError,
  createAwsJsonClient,
} from '../../../functions/connections/aws-json-client.ts';
import { type FakeAws, startFakeAws } from '../../support/fake-aws.ts';

const region = 'eu-west-1';
const queueUrl = 'https://sqs.eu-west-1.amazonaws.com/123456789012/q';
const secretId = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:s-AbCdEf';
const credentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret', sessionToken: 't' };

let aws: FakeAws;
let silent: Server;

beforeAll(async () => {
  aws = await startFakeAws({ region, queues: [queueUrl], secrets: { [secretId]: 'whsec_x' } });
  silent = createServer(() => {});
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  await aws.close();
  silent.closeAllConnections();
  await new Promise((resolve) => silent.close(resolve));
});

const sqs = (options: Partial<AwsJsonClientOptions> = {}) =>
  createAwsJsonClient({
    endpoint: new URL(String(aws.env.AWS_ENDPOINT_URL_SQS)),
    region,
    credentials,
    signingName: 'sqs',
    targetPrefix: 'AmazonSQS',
    jsonVersion: '1.0',
    backoffBaseMs: 1,
    ...options,
  });
const secrets = () =>
  createAwsJsonClient({
    endpoint: new URL(String(aws.env.AWS_ENDPOINT_URL_SECRETS_MANAGER)),
    region,
    credentials,
    signingName: 'secretsmanager',
    targetPrefix: 'secretsmanager',
    jsonVersion: '1.1',
  });
const hold = { QueueUrl: queueUrl, ReceiptHandle: 'AQEBx', VisibilityTimeout: 30 };
const callsTo = (operation: string) => aws.calls().filter((call) => call.operation === operation);

describe('createAwsJsonClient', () => {
  it('makes a signed JSON 1.0 call to SQS and a JSON 1.1 call to Secrets Manager', async () => {
    const held = await sqs()('ChangeMessageVisibility', hold);
    const secret = await secrets()('GetSecretValue', { SecretId: secretId });

    expect(held).toStrictEqual({});
    expect(secret).toMatchObject({ SecretString: 'whsec_x', ARN: secretId });
    expect(callsTo('ChangeMessageVisibility').at(-1)?.input).toStrictEqual(hold);
  });

  it('throws what the service means after one attempt', async () => {
    const before = callsTo('ChangeMessageVisibility').length;

    const failure = await sqs()('ChangeMessageVisibility', {
      ...hold,
      QueueUrl: `${queueUrl}2`,
    }).then(
      () => undefined,
      (error: unknown) => error,
    );

    expect(failure).toBeInstanceOf(AwsServiceError);
    expect(failure).toMatchObject({ statusCode: 400, type: 'QueueDoesNotExist' });
    expect(callsTo('ChangeMessageVisibility').length - before).toBe(1);
  });

  it("retries the service's own failures, and succeeds when one attempt does", async () => {
    const before = callsTo('ChangeMessageVisibility').length;
    aws.failNext('sqs', 2);

    await sqs({ maxAttempts: 3 })('ChangeMessageVisibility', hold);

    expect(callsTo('ChangeMessageVisibility').length - before).toBe(3);
  });

  it('gives up after its attempts, saying the service is unavailable', async () => {
    aws.failNext('sqs', 2);

    const failure = await sqs({ maxAttempts: 2 })('ChangeMessageVisibility', hold).then(
      () => undefined,
      (error: unknown) => error,
    );

    expect(failure).toBeInstanceOf(AwsUnavailableError);
    expect(String((failure as Error).cause)).toContain('InternalFailure');
  });

  it('ends an attempt that gets no answer at its deadline', async () => {
    const { port } = silent.address() as AddressInfo;
    const started = performance.now();

    const failure = await sqs({
      endpoint: new URL(`http://127.0.0.1:${port}`),
      attemptTimeoutMs: 100,
      maxAttempts: 2,
    })('ChangeMessageVisibility', hold).then(
      () => undefined,
      (error: unknown) => error,
    );

    expect(failure).toBeInstanceOf(AwsUnavailableError);
    expect(performance.now() - started).toBeLessThan(1000);
  });
});
