import {
  awsAccess,
  type Config,
  ConfigError,
  type Env,
  required,
  serviceEndpoint,
  url,
} from '../config.ts';

/** Where and as whom the deliverer calls an AWS service: as the table's client is configured. */
type AwsEndpoint = Config['dynamodb'];

export type WebhookConfig = {
  /** Lambda's own variable; names the metrics' `Service` dimension. */
  readonly functionName: string;
  /** Where every event is POSTed. */
  readonly url: URL;
  /** The Secrets Manager secret holding the signing secret. */
  readonly secretId: string;
  /** The queue the events come from, whose messages a failed attempt holds back. */
  readonly queueUrl: string;
  readonly sqs: AwsEndpoint;
  readonly secretsManager: AwsEndpoint;
};

/**
 * The deliverer's variables, which the stack and the local server write and `loadWebhookConfig`
 * reads; the AWS_* ones Lambda sets itself are read by name.
 */
export const webhookEnvNames = {
  url: 'WEBHOOK_URL',
  secretId: 'WEBHOOK_SECRET_ID',
  queueUrl: 'WEBHOOK_QUEUE_URL',
  /** The AWS SDK's own endpoint overrides; only the local server and tests set them. */
  sqsEndpoint: 'AWS_ENDPOINT_URL_SQS',
  secretsManagerEndpoint: 'AWS_ENDPOINT_URL_SECRETS_MANAGER',
} as const;

/** Reads the deliverer's environment once; a missing or malformed variable fails the cold start. */
export function loadWebhookConfig(env: Env): WebhookConfig {
  const target = url(env, webhookEnvNames.url, required(env, webhookEnvNames.url));
  // The stack allows https only; http is for a receiver on the same machine.
  if (target.protocol !== 'https:' && target.protocol !== 'http:') {
    throw new ConfigError(`${webhookEnvNames.url} is not an http or https URL`);
  }
  const queueUrl = required(env, webhookEnvNames.queueUrl);
  if (!URL.canParse(queueUrl)) {
    throw new ConfigError(`${webhookEnvNames.queueUrl} is not a valid URL: ${queueUrl}`);
  }
  const { region, credentials } = awsAccess(env);
  const endpoint = (override: string, service: string) =>
    serviceEndpoint(env, override, service, region);
  return {
    functionName: env.AWS_LAMBDA_FUNCTION_NAME ?? 'plant-store-webhook',
    url: target,
    secretId: required(env, webhookEnvNames.secretId),
    queueUrl,
    sqs: { endpoint: endpoint(webhookEnvNames.sqsEndpoint, 'sqs'), region, credentials },
    secretsManager: {
      endpoint: endpoint(webhookEnvNames.secretsManagerEndpoint, 'secretsmanager'),
      region,
      credentials,
    },
  };
}
