import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../functions/config.ts';
import {
  loadWebhookConfig,
  webhookEnvNames,
} from '../../../functions/deliver-webhook/webhook-config.ts';

const lambdaEnv = {
  WEBHOOK_URL: 'https://hooks.example.com/plant/webhook?token=abc',
  WEBHOOK_SECRET_ID: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:Webhook-AbCdEf',
  WEBHOOK_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/PlantStore-dev-Webhook',
  AWS_REGION: 'eu-west-1',
  AWS_ACCESS_KEY_ID: 'ASIAEXAMPLE',
  AWS_SECRET_ACCESS_KEY: 'secret',
  AWS_SESSION_TOKEN: 'session',
  AWS_LAMBDA_FUNCTION_NAME: 'PlantStore-dev-Deliverer',
};

describe('loadWebhookConfig', () => {
  it("reads a Lambda environment, with the region's endpoints", () => {
    const config = loadWebhookConfig(lambdaEnv);

    expect(config.url.href).toBe(lambdaEnv.WEBHOOK_URL);
    expect(config.secretId).toBe(lambdaEnv.WEBHOOK_SECRET_ID);
    expect(config.queueUrl).toBe(lambdaEnv.WEBHOOK_QUEUE_URL);
    expect(config.functionName).toBe('PlantStore-dev-Deliverer');
    expect(config.sqs.endpoint.href).toBe('https://sqs.eu-west-1.amazonaws.com/');
    expect(config.secretsManager.endpoint.href).toBe(
      'https://secretsmanager.eu-west-1.amazonaws.com/',
    );
    expect(config.sqs.credentials).toStrictEqual({
      accessKeyId: 'ASIAEXAMPLE',
      secretAccessKey: 'secret',
      sessionToken: 'session',
    });
  });

  it("takes the AWS SDK's endpoint overrides, as the local server sets them", () => {
    const config = loadWebhookConfig({
      ...lambdaEnv,
      WEBHOOK_URL: 'http://127.0.0.1:9000',
      [webhookEnvNames.sqsEndpoint]: 'http://127.0.0.1:4566',
      [webhookEnvNames.secretsManagerEndpoint]: 'http://127.0.0.1:4567',
    });

    expect(config.url.href).toBe('http://127.0.0.1:9000/');
    expect(config.sqs.endpoint.href).toBe('http://127.0.0.1:4566/');
    expect(config.secretsManager.endpoint.href).toBe('http://127.0.0.1:4567/');
  });

  it.each([
    ['WEBHOOK_URL', { WEBHOOK_URL: undefined }, 'WEBHOOK_URL is not set'],
    ['WEBHOOK_URL', { WEBHOOK_URL: 'not a url' }, 'WEBHOOK_URL is not a valid URL'],
    ['WEBHOOK_URL', { WEBHOOK_URL: 'ftp://example.com/' }, 'WEBHOOK_URL is not an http'],
    ['WEBHOOK_SECRET_ID', { WEBHOOK_SECRET_ID: ' ' }, 'WEBHOOK_SECRET_ID is not set'],
    ['WEBHOOK_QUEUE_URL', { WEBHOOK_QUEUE_URL: undefined }, 'WEBHOOK_QUEUE_URL is not set'],
    ['WEBHOOK_QUEUE_URL', { WEBHOOK_QUEUE_URL: 'queue' }, 'WEBHOOK_QUEUE_URL is not a valid URL'],
    ['AWS_REGION', { AWS_REGION: undefined }, 'AWS_REGION is not set'],
    [
      'AWS_ENDPOINT_URL_SQS',
      { AWS_ENDPOINT_URL_SQS: 'nope' },
      'AWS_ENDPOINT_URL_SQS is not a valid URL',
    ],
  ])('fails the cold start naming %s', (_name, change, message) => {
    const act = () => loadWebhookConfig({ ...lambdaEnv, ...change });

    expect(act).toThrow(ConfigError);
    expect(act).toThrow(message);
  });
});
