import { createAwsJsonClient } from '../connections/aws-json-client.ts';
import { errorChain, jsonLogger } from '../log.ts';
import { makeHandler } from './deliver-webhook.ts';
import { receiverSend } from './receiver-send.ts';
import { readSigningSecrets, refreshingSigningKeys } from './signing-keys.ts';
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

const { send } = receiverSend(config.url);

const signingKeys = refreshingSigningKeys(
  () =>
    readSigningSecrets((stage) =>
      secretsManager('GetSecretValue', { SecretId: config.secretId, VersionStage: stage }),
    ),
  {
    // The attempts go on, signed with the keys read before; the reason never holds the secret.
    onKeptAfterFailure: (error) =>
      jsonLogger('warn', 'webhook signing secret not read again', { reason: errorChain(error) }),
  },
);
// Read during init, so that the first batch finds it; a failure here is the first batch's to retry.
signingKeys().catch(() => {});

/**
 * The Lambda entry point, fed by the SQS event source mapping with ReportBatchItemFailures. Its
 * clients and the receiver's connections are made once per container; the signing keys are read
 * again every few minutes, so that a rotated secret is picked up without a deploy.
 */
export const handler = makeHandler({
  send,
  holdBack: async (receiptHandle, seconds) => {
    await sqs('ChangeMessageVisibility', {
      QueueUrl: config.queueUrl,
      ReceiptHandle: receiptHandle,
      VisibilityTimeout: seconds,
    });
  },
  signingKeys,
  service: config.functionName,
});
