import type { Agent } from 'node:http';
import { type AwsCredentials, signRequest } from './aws-signature-v4.ts';
import { keepAliveAgent, sendRequest } from './outbound-http.ts';

/** The functions' AWS calls, instead of the SDK (docs/decisions/0001-no-aws-sdk-in-the-function.md). */
export type AwsJsonClientOptions = {
  readonly endpoint: URL;
  readonly region: string;
  readonly credentials: AwsCredentials;
  readonly signingName: string;
  /** Before the operation in `X-Amz-Target`. */
  readonly targetPrefix: string;
  readonly jsonVersion: '1.0' | '1.1';
  /** Connect, send and answer. */
  readonly attemptTimeoutMs?: number;
  readonly maxAttempts?: number;
  /** Full jitter, doubling, capped at 1 s. */
  readonly backoffBaseMs?: number;
  readonly agent?: Agent;
  readonly maxResponseBytes?: number;
  readonly retryable?: (statusCode: number, type: string) => boolean;
  readonly serviceError?: (
    operation: string,
    statusCode: number,
    type: string,
    payload: Record<string, unknown>,
  ) => Error;
  readonly unavailableError?: (operation: string, attempts: number, cause: unknown) => Error;
};

/** The service answered with an error it means: access denied, an unknown queue, a bad handle. */
export class AwsServiceError extends Error {
  readonly type: string;
  readonly statusCode: number;

  constructor(operation: string, statusCode: number, type: string) {
    super(`${operation}: ${type} (${statusCode})`);
    this.name = 'AwsServiceError';
    this.type = type;
    this.statusCode = statusCode;
  }
}

/** Every attempt was throttled, timed out, refused or met a server error. */
export class AwsUnavailableError extends Error {
  constructor(operation: string, attempts: number, cause: unknown) {
    super(`${operation} unavailable after ${attempts} attempts`, { cause });
    this.name = 'AwsUnavailableError';
  }
}

export type AwsJsonClient = (
  operation: string,
  input: Readonly<Record<string, unknown>>,
) => Promise<Record<string, unknown>>;

export function createAwsJsonClient(options: AwsJsonClientOptions): AwsJsonClient {
  const { endpoint, region, credentials, signingName, targetPrefix } = options;
  const attemptTimeoutMs = options.attemptTimeoutMs ?? 2000;
  const maxAttempts = options.maxAttempts ?? 3;
  const backoffBaseMs = options.backoffBaseMs ?? 100;
  const agent = options.agent ?? keepAliveAgent(endpoint, 10);
  const maxResponseBytes = options.maxResponseBytes ?? 256 * 1024;
  const contentType = `application/x-amz-json-${options.jsonVersion}`;
  const {
    retryable = (statusCode, type) =>
      statusCode >= 500 || statusCode === 429 || /throttl/i.test(type),
    serviceError = (operation, statusCode, type) =>
      new AwsServiceError(operation, statusCode, type),
    unavailableError = (operation, attempts, cause) =>
      new AwsUnavailableError(operation, attempts, cause),
  } = options;

  const attempt = async (operation: string, body: string) => {
    const headers = signRequest(
      {
        method: 'POST',
        url: endpoint,
        headers: { 'content-type': contentType, 'x-amz-target': `${targetPrefix}.${operation}` },
        body,
      },
      credentials,
      { region, service: signingName },
    );
    const { statusCode, body: text } = await sendRequest(endpoint, {
      method: 'POST',
      headers,
      body,
      agent,
      timeoutMs: attemptTimeoutMs,
      maxResponseBytes,
    });
    // A proxy's HTML error page is not JSON: it fails the attempt like a network error would.
    return { statusCode, payload: (text ? JSON.parse(text) : {}) as Record<string, unknown> };
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
      const failure = serviceError(operation, answer.statusCode, type, answer.payload);
      if (!retryable(answer.statusCode, type)) throw failure;
      lastFailure = failure;
    }
    throw unavailableError(operation, maxAttempts, lastFailure);
  };
}

/** `com.amazonaws.sqs#ReceiptHandleIsInvalid` -> the part after `#`, as every JSON-protocol service writes it. */
function errorType(payload: Record<string, unknown>): string {
  const raw = typeof payload.__type === 'string' ? payload.__type : 'UnknownError';
  return raw.slice(raw.lastIndexOf('#') + 1);
}

const backoff = (retry: number, baseMs: number) =>
  Math.random() * Math.min(1000, baseMs * 2 ** (retry - 1));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
