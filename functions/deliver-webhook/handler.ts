import { createAwsJsonClient } from '../connections/aws-json-client.ts';
import { keepAliveAgent } from '../connections/outbound-http.ts';
import { makeHandler } from './deliver-webhook.ts';
import { batchSize, deliveryDeadlineMs } from './delivery-policy.ts';
import { postToReceiver } from './receiver-request.ts';
import { SigningSecretError, signingKeyOnce } from './signature.ts';
import { loadWebhookConfig } from './webhook-config.ts';

const config = loadWebhookConfig(process.env);

const sqs = createAwsJsonClient({
  ...config.sqs,
  signingName: 'sqs',
  targetPrefix: 'AmazonSQS',
  jsonVersion: '1.0',
});
const secretsManager = createAwsJsonClient({
  ...config.secretsManager,
  signingName: 'secretsmanager',
  targetPrefix: 'secretsmanager',
  jsonVersion: '1.1',
});

/** One connection per event of a batch, kept across invocations. */
const receiverAgent = keepAliveAgent(config.url, batchSize);

/**
 * Whatever the receiver answers is read and dropped, up to this much; a longer answer closes its
 * connection, and its status still counts: a 2xx acknowledges whatever its body.
 */
const maxAnswerBytes = 1024 * 1024;

const signingKey = signingKeyOnce(async () => {
  const { SecretString } = await secretsManager('GetSecretValue', { SecretId: config.secretId });
  if (typeof SecretString !== 'string') {
    throw new SigningSecretError('the signing secret has no SecretString');
  }
  return SecretString;
});
// Read during init, so that the first batch finds it; a failure here is the first batch's to retry.
signingKey().catch(() => {});

/**
 * The Lambda entry point, fed by the SQS event source mapping with ReportBatchItemFailures. Its
 * clients, the receiver's connections and the signing key are made once per container.
 */
export const handler = makeHandler({
  send: ({ headers, body }) =>
    postToReceiver(config.url, {
      headers,
      body,
      agent: receiverAgent,
      timeoutMs: deliveryDeadlineMs,
      maxAnswerBytes,
    }),
  holdBack: async (receiptHandle, seconds) => {
    await sqs('ChangeMessageVisibility', {
      QueueUrl: config.queueUrl,
      ReceiptHandle: receiptHandle,
      VisibilityTimeout: seconds,
    });
  },
  signingKey,
  service: config.functionName,
});
