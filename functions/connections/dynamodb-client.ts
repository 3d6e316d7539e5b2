import type { Agent } from 'node:http';
import { createAwsJsonClient } from './aws-json-client.ts';
import type { AwsCredentials } from './aws-signature-v4.ts';
import { keepAliveAgent } from './outbound-http.ts';

/**
 * The DynamoDB calls of the store adapter, over the AWS JSON protocol client
 * (`aws-json-client.ts`) with DynamoDB's retryable error types and its typed errors. It exists because the AWS SDK v3 client
 * costs more cold init than the two calls this function makes are worth
 * (docs/decisions/0001-no-aws-sdk-in-the-function.md); it is kept behind the store port so the SDK
 * can come back by changing one file.
 */
export type DynamoDbClientOptions = {
  readonly endpoint: URL;
  readonly region: string;
  readonly credentials: AwsCredentials;
  /** Connect, send and answer must all fit; DynamoDB answers far sooner. @default 800 */
  readonly attemptTimeoutMs?: number;
  /** @default 3 */
  readonly maxAttempts?: number;
  /** The first retry waits up to this long, doubling each time, capped at 1 s. @default 100 */
  readonly backoffBaseMs?: number;
  /**
   * The keep-alive connections to `endpoint`, perhaps with one opened ahead (`preconnect`).
   * @default a keep-alive agent of 50 sockets
   */
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
