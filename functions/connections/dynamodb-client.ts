import type { Agent } from 'node:http';
import { type AwsCredentials, signRequest } from './aws-signature-v4.ts';
import { keepAliveAgent, sendRequest } from './outbound-http.ts';

/**
 * A minimal DynamoDB JSON-protocol client: SigV4 over a keep-alive agent, a hard timeout per
 * attempt, and bounded retries with full-jitter backoff. It exists because the AWS SDK v3 client
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
  const { endpoint, region, credentials } = options;
  const attemptTimeoutMs = options.attemptTimeoutMs ?? 800;
  const maxAttempts = options.maxAttempts ?? 3;
  const backoffBaseMs = options.backoffBaseMs ?? 100;
  const agent = options.agent ?? keepAliveAgent(endpoint, 50);

  const attempt = (operation: DynamoDbOperation, body: string) => {
    const headers = signRequest(
      {
        method: 'POST',
        url: endpoint,
        headers: {
          'content-type': 'application/x-amz-json-1.0',
          'x-amz-target': `DynamoDB_20120810.${operation}`,
        },
        body,
      },
      credentials,
      { region, service: 'dynamodb' },
    );
    return sendRequest(endpoint, {
      method: 'POST',
      headers,
      body,
      agent,
      timeoutMs: attemptTimeoutMs,
      maxResponseBytes,
    }).then(({ statusCode, body: text }) => ({
      statusCode,
      // A proxy's HTML error page is not JSON: it fails the attempt like a network error would.
      payload: (text ? JSON.parse(text) : {}) as Record<string, unknown>,
    }));
  };

  return async (operation, input) => {
    const body = JSON.stringify(input);
    let lastFailure: unknown;
    for (let attemptNumber = 1; attemptNumber <= maxAttempts; attemptNumber++) {
      if (attemptNumber > 1) await sleep(backoff(attemptNumber - 1, backoffBaseMs));
      let answer: { statusCode: number; payload: Record<string, unknown> };
      try {
        answer = await attempt(operation, body);
      } catch (networkError) {
        lastFailure = networkError;
        continue;
      }
      if (answer.statusCode === 200) return answer.payload;
      const type = errorType(answer.payload);
      const failure = new DynamoDbServiceError(answer.statusCode, type, answer.payload);
      if (answer.statusCode < 500 && !retryableTypes.has(type)) throw failure;
      lastFailure = failure;
    }
    throw new DynamoDbUnavailableError(maxAttempts, lastFailure);
  };
}

/** `com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException` -> the part after `#`. */
function errorType(payload: Record<string, unknown>): string {
  const raw = typeof payload.__type === 'string' ? payload.__type : 'UnknownError';
  return raw.slice(raw.lastIndexOf('#') + 1);
}

const backoff = (retry: number, baseMs: number) =>
  Math.random() * Math.min(1000, baseMs * 2 ** (retry - 1));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
