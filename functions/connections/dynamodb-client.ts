import type { Agent } from 'node:http';
import { createAwsJsonClient } from './aws-json-client.ts';
import type { AwsCredentials } from './aws-signature-v4.ts';
import { keepAliveAgent } from './outbound-http.ts';

/**
 * The SDK costs more cold init than these calls are worth
 * (docs/decisions/0001-no-aws-sdk-in-the-function.md); behind the store port, it could come back.
 */
export type DynamoDbClientOptions = {
  readonly endpoint: URL;
  readonly region: string;
  readonly credentials: AwsCredentials;
  readonly attemptTimeoutMs?: number;
  readonly maxAttempts?: number;
  readonly backoffBaseMs?: number;
  /** Perhaps with a connection opened ahead (`preconnect`). */
  readonly agent?: Agent;
};

export type DynamoDbOperation = 'PutItem' | 'GetItem' | 'Scan' | 'DeleteItem';

/** DynamoDB answered with an error it means: a failed condition, a validation error, access denied. */
export class DynamoDbServiceError extends Error {
  readonly type: string;
  readonly statusCode: number;
  readonly payload: Readonly<Record<string, unknown>>;

  constructor(statusCode: number, type: string, payload: Record<string, unknown>) {
    super(`DynamoDB ${type} (${statusCode})`);
    this.name = 'DynamoDbServiceError';
    this.type = type;
    this.statusCode = statusCode;
    this.payload = payload;
  }
}

/** Every attempt was throttled, timed out, refused or met a server error. */
export class DynamoDbUnavailableError extends Error {
  readonly attempts: number;

  constructor(attempts: number, cause: unknown) {
    super(`DynamoDB unavailable after ${attempts} attempts`, { cause });
    this.name = 'DynamoDbUnavailableError';
    this.attempts = attempts;
  }
}

const retryableTypes = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'InternalServerError',
  'ServiceUnavailable',
]);

/** Larger than any answer to PutItem or GetItem of a 400 KB item. */
const maxResponseBytes = 1024 * 1024;

export type DynamoDbClient = (
  operation: DynamoDbOperation,
  input: Record<string, unknown>,
) => Promise<Record<string, unknown>>;

export function createDynamoDbClient(options: DynamoDbClientOptions): DynamoDbClient {
  return createAwsJsonClient({
    endpoint: options.endpoint,
    region: options.region,
    credentials: options.credentials,
    signingName: 'dynamodb',
    targetPrefix: 'DynamoDB_20120810',
    jsonVersion: '1.0',
    attemptTimeoutMs: options.attemptTimeoutMs ?? 800,
    maxAttempts: options.maxAttempts,
    backoffBaseMs: options.backoffBaseMs,
    agent: options.agent ?? keepAliveAgent(options.endpoint, 50),
    maxResponseBytes,
    retryable: (statusCode, type) => statusCode >= 500 || retryableTypes.has(type),
    serviceError: (_operation, statusCode, type, payload) =>
      new DynamoDbServiceError(statusCode, type, payload),
    unavailableError: (_operation, attempts, cause) =>
      new DynamoDbUnavailableError(attempts, cause),
  });
}
