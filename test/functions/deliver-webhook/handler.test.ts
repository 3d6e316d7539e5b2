import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import type { SQSBatchResponse } from 'aws-lambda';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findLambdaFunction } from '../../../bench/support/cloud-assembly.ts';
import { evaluateEnvironment } from '../../../bench/support/cloudformation.ts';
import { type HttpsEndpoint, startHttpsEndpoint } from '../../../bench/support/https-endpoint.ts';
import { lambdaEnvironment } from '../../../bench/support/lambda-environment.ts';
import { type LambdaProcess, startLambdaProcess } from '../../../bench/support/lambda-process.ts';
import { createThrowawayCa, type ThrowawayCa } from '../../../bench/support/throwaway-ca.ts';
import { deliveryCounters } from '../../../functions/deliver-webhook/delivery-metrics.ts';
import { deliveryDeadlineMs } from '../../../functions/deliver-webhook/delivery-policy.ts';
import { webhookEnvNames } from '../../../functions/deliver-webhook/webhook-config.ts';
import { extractedMetrics } from '../../support/emf.ts';
import { type FakeAws, startFakeAws } from '../../support/fake-aws.ts';
import { sharedAssembly, sharedAssemblyTimeoutMs } from '../../support/shared-assembly.ts';
import { insertRecord, queueUrl, sqsEvent, sqsRecord } from '../../support/webhook-events.ts';
import {
  type ReceiverBehaviour,
  startWebhookReceiver,
  type WebhookReceiver,
} from '../../support/webhook-receiver.ts';

/**
 * The deliverer as `cdk synth -c webhookUrl=...` ships it, run as Lambda runs it: a fresh process
 * loads the asset by the template's `Handler`, with the template's environment evaluated as
 * CloudFormation would (the queue's URL, the secret's ARN) and Lambda's own variables. The
 * subscriber is an HTTPS receiver that verifies with `standardwebhooks`; SQS and Secrets Manager
 * are loopback stand-ins speaking their JSON protocols over TLS, which refuse a call not signed
 * for them. The secret is what Secrets Manager generates for the stack: 48 alphanumerics.
 */

const region = 'eu-west-1';
const secretArn = `arn:aws:secretsmanager:${region}:123456789012:secret:NewPlantWebhookSigningSecret-AbCdEf`;
const generated = randomBytes(36).toString('base64').replace(/[+/=]/g, 'x').slice(0, 48);
/** What the stack's WebhookSecretCommand output prints, and the subscriber configures. */
const subscriberSecret = `whsec_${generated}`;
/** A 200 that comes just before the deadline still acknowledges. */
const lateMs = deliveryDeadlineMs - 1000;

let ca: ThrowawayCa;
let receiver: WebhookReceiver;
let aws: FakeAws;
let endpoints: HttpsEndpoint[];
let lambda: LambdaProcess;

beforeAll(async () => {
  ca = await createThrowawayCa();
  let redirectTo = '';
  const behaviours: Record<string, ReceiverBehaviour> = {
    refused: { kind: 'answer', status: 500 },
    gone: { kind: 'answer', status: 404 },
    get moved(): ReceiverBehaviour {
      return { kind: 'redirect', status: 301, location: redirectTo };
    },
    hanging: { kind: 'hang' },
    reset: { kind: 'reset' },
    late: { kind: 'answer', status: 200, afterMs: lateMs },
  };
  receiver = await startWebhookReceiver({
    secret: subscriberSecret,
    tls: ca,
    behaviour: (name) => behaviours[name ?? ''] ?? { kind: 'answer', status: 200 },
  });
  redirectTo = `${receiver.url.origin}/elsewhere`;
  aws = await startFakeAws({ region, queues: [queueUrl], secrets: { [secretArn]: generated } });
  endpoints = await Promise.all(
    [aws.env.AWS_ENDPOINT_URL_SQS, aws.env.AWS_ENDPOINT_URL_SECRETS_MANAGER].map((url) =>
      startHttpsEndpoint(new URL(String(url)), ca),
    ),
  );

  // Synth refuses a loopback subscriber; the receiver's URL replaces the shared one below.
  const assembly = await sharedAssembly();
  const fn = findLambdaFunction(assembly, 'NewPlantWebhook/Deliverer/Resource');
  const variables = evaluateEnvironment(fn.template, fn.environment, {
    region,
    accountId: '123456789012',
    resources: {
      'AWS::SQS::Queue': { ref: queueUrl },
      'AWS::SecretsManager::Secret': { ref: secretArn },
    },
  });
  lambda = await startLambdaProcess({
    env: {
      ...lambdaEnvironment({
        fn,
        variables,
        region,
        functionName: 'PlantStore-test-NewPlantWebhookDeliverer',
      }),
      [webhookEnvNames.url]: receiver.url.href,
      NODE_EXTRA_CA_CERTS: ca.caFile,
      AWS_ENDPOINT_URL_SQS: endpoints[0]?.url.href ?? '',
      AWS_ENDPOINT_URL_SECRETS_MANAGER: endpoints[1]?.url.href ?? '',
    },
  });
}, sharedAssemblyTimeoutMs);

afterAll(async () => {
  await lambda?.close();
  await Promise.all([receiver?.close(), aws?.close(), ...(endpoints ?? []).map((e) => e.close())]);
  await rm(ca?.dir ?? '', { recursive: true, force: true });
});

const names = ['Fern', 'late', 'refused', 'gone', 'moved', 'hanging', 'reset'] as const;
const failing = ['refused', 'gone', 'moved', 'hanging', 'reset'] as const;
const records = Object.fromEntries(
  names.map((name, index) => [
    name,
    insertRecord({ id: String(9223372036854775800n + BigInt(index)), name }),
  ]),
) as Record<(typeof names)[number], Record<string, unknown>>;
const messages = Object.fromEntries(
  names.map((name) => [name, sqsRecord(records[name], { messageId: `message-${name}` })]),
) as Record<(typeof names)[number], ReturnType<typeof sqsRecord>>;

const deliveriesOf = (name: (typeof names)[number]) =>
  receiver
    .received()
    .filter((each) => each.headers['webhook-id'] === `msg_${records[name].eventID}`);
const holds = () => aws.calls().filter((call) => call.operation === 'ChangeMessageVisibility');
const secretReads = () => aws.calls().filter((call) => call.operation === 'GetSecretValue');

describe('the deliverer asset cdk synth writes, with webhookUrl', () => {
  let answer: SQSBatchResponse;
  let tookMs = 0;
  let invokedAt = 0;

  beforeAll(async () => {
    invokedAt = Date.now();
    const result = await lambda.invoke(sqsEvent(...names.map((name) => messages[name])), {
      timeoutMs: 40_000,
    });
    expect(result.error).toBeUndefined();
    answer = result.result as SQSBatchResponse;
    tookMs = result.finishedAt - result.startedAt;
  });

  it('acknowledges a 2xx, also one 14 s late, and retries a 500, 404, 301, a hang and a reset', () => {
    const failed = answer.batchItemFailures.map(({ itemIdentifier }) => itemIdentifier).sort();

    expect(failed).toStrictEqual(failing.map((name) => `message-${name}`).sort());
    expect(receiver.received().filter((each) => each.path === '/elsewhere')).toStrictEqual([]);
  });

  it('ends the hanging attempt at the deadline, and answers no later than that', () => {
    expect(tookMs).toBeGreaterThanOrEqual(deliveryDeadlineMs - 50);
    expect(tookMs).toBeLessThan(deliveryDeadlineMs + 5000);
  });

  it('holds back exactly the failed messages with SQS ChangeMessageVisibility, signed for SQS', () => {
    const held = holds().map(({ input }) => input as Record<string, unknown>);

    expect(held.map(({ ReceiptHandle }) => ReceiptHandle).sort()).toStrictEqual(
      failing.map((name) => messages[name].receiptHandle).sort(),
    );
    for (const each of held) {
      expect(each).toMatchObject({ QueueUrl: queueUrl, VisibilityTimeout: 2 });
    }
  });

  it('sends every attempt signed, so that the subscriber verifies it with the whsec_ secret', () => {
    const all = receiver.received().filter((each) => each.path === '/plant/webhook');

    expect(all).toHaveLength(names.length);
    for (const each of all) expect(each.verified, each.verifyError).toBe(true);
    expect(deliveriesOf('Fern')[0]?.body).toBe('{"id":9223372036854775800,"name":"Fern"}');
  });

  it('fails verification at a subscriber holding another secret', () => {
    const [delivery] = deliveriesOf('Fern');
    const other = new Webhook(`whsec_${randomBytes(32).toString('base64')}`);

    const headers = delivery?.headers as Record<string, string>;
    expect(() => other.verify(delivery?.body ?? '', headers)).toThrow(WebhookVerificationError);
  });

  it('delivers the good event at once while others of its batch hang', () => {
    expect(deliveriesOf('Fern')[0]?.receivedAt).toBeLessThan(invokedAt + 3000);
  });

  it('writes one log line per event, with its outcome counted', () => {
    const lines = lambda
      .output()
      .split('\n')
      .filter((line) => line.includes('"webhook delivery"'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const counted = lines.flatMap((line) => extractedMetrics(line).map(({ name }) => name));

    expect(lines).toHaveLength(names.length);
    expect(counted.filter((name) => name === deliveryCounters.delivered)).toHaveLength(2);
    expect(counted.filter((name) => name === deliveryCounters.retried)).toHaveLength(5);
    expect(lambda.output()).not.toContain(generated);
  });

  it('retries under the same webhook-id, and reads the current secret once within its TTL', async () => {
    const again = sqsRecord(records.refused, { receiveCount: 2, messageId: 'message-refused' });

    const result = await lambda.invoke(sqsEvent(again), { timeoutMs: 20_000 });

    expect(result.result).toStrictEqual({
      batchItemFailures: [{ itemIdentifier: 'message-refused' }],
    });
    const attempts = deliveriesOf('refused');
    expect(attempts).toHaveLength(2);
    expect(attempts[1]?.body).toBe(attempts[0]?.body);
    expect(attempts[1]?.verified).toBe(true);
    const wait = (holds().at(-1)?.input as { VisibilityTimeout?: number } | undefined)
      ?.VisibilityTimeout;
    expect(wait).toBeGreaterThanOrEqual(30);
    expect(wait).toBeLessThanOrEqual(36);
    expect(secretReads()).toHaveLength(1);
    expect(secretReads()[0]?.input).toStrictEqual({
      SecretId: secretArn,
      VersionStage: 'AWSCURRENT',
    });
  });
});
