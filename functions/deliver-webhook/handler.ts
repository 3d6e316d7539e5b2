import { createAwsJsonClient } from '../connections/aws-json-client.ts';
import { keepAliveAgent, sendRequest } from '../connections/outbound-http.ts';
import { makeHandler } from './deliver-webhook.ts';
import { batchSize, deliveryDeadlineMs } from './delivery-policy.ts';
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

/** Whatever the receiver answers is read and dropped; a larger answer fails the attempt. */
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
  send: async ({ headers, body }) => {
    const answer = await sendRequest(config.url, {
      method: 'POST',
      headers,
      body,
      agent: receiverAgent,
      timeoutMs: deliveryDeadlineMs,
      maxResponseBytes: maxAnswerBytes,
    });
    return answer.statusCode;
  },
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
