import {
  type CognitoIdentityProviderClient,
  DescribeUserPoolClientCommand,
} from '@aws-sdk/client-cognito-identity-provider';
import type { TokenSource } from './hook-config.ts';

/** A token could not be had: the pool refused the client, or its domain never answered in time. */
export class TokenUnavailableError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'TokenUnavailableError';
  }
}

/**
 * The app client's secret, read from the pool when it is needed rather than kept in the hook's
 * environment, where anyone who can read the function's configuration would see it.
 */
export async function readClientSecret(
  cognito: CognitoIdentityProviderClient,
  source: Pick<TokenSource, 'userPoolId' | 'clientId'>,
  abortSignal: AbortSignal,
): Promise<string> {
  const { UserPoolClient } = await cognito.send(
    new DescribeUserPoolClientCommand({ UserPoolId: source.userPoolId, ClientId: source.clientId }),
    { abortSignal },
  );
  const secret = UserPoolClient?.ClientSecret;
  if (!secret) throw new TokenUnavailableError(`app client ${source.clientId} has no secret`);
  return secret;
}

export type TokenRequest = {
  readonly tokenUrl: URL;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly scope?: string;
  /** `Date.now()` after which no attempt starts; the last one ends by it too. */
  readonly deadline: number;
  /** @default 10_000 */
  readonly attemptTimeoutMs?: number;
  /** Doubles after each failed attempt, up to `maxRetryDelayMs`. @default 1_000 */
  readonly firstRetryDelayMs?: number;
  /** @default 8_000 */
  readonly maxRetryDelayMs?: number;
  /** Told of each failed attempt that is retried. */
  readonly onRetry?: (attempt: number, reason: string) => void;
};

/**
 * An access token from the pool's OAuth 2.0 token endpoint (client-credentials grant, client
 * authentication by HTTP Basic, RFC 6749 4.4 and 2.3.1). A user pool domain created by this very
 * deployment may not answer for about a minute (no DNS name yet, or its edge still answering
 * errors), so anything but an OAuth error is retried with backoff until `deadline`. An OAuth
 * error (400 or 401 with an `error` code) will not go away by waiting and ends the attempts.
 */
export async function requestClientCredentialsToken(request: TokenRequest): Promise<string> {
  const {
    deadline,
    attemptTimeoutMs = 10_000,
    firstRetryDelayMs = 1_000,
    maxRetryDelayMs = 8_000,
  } = request;
  const form = new URLSearchParams({ grant_type: 'client_credentials' });
  if (request.scope !== undefined) form.set('scope', request.scope);
  const basic = Buffer.from(
    `${formEncode(request.clientId)}:${formEncode(request.clientSecret)}`,
  ).toString('base64');

  let delay = firstRetryDelayMs;
  for (let attempt = 1; ; attempt += 1) {
    const outcome = await attemptToken(request.tokenUrl, basic, form, {
      timeoutMs: Math.max(1, Math.min(attemptTimeoutMs, deadline - Date.now())),
    });
    if (outcome.token !== undefined) return outcome.token;
    if (outcome.final) throw new TokenUnavailableError(outcome.reason);
    if (Date.now() + delay >= deadline) {
      throw new TokenUnavailableError(
        `no token from ${request.tokenUrl.origin} after ${attempt} attempts: ${outcome.reason}`,
      );
    }
    request.onRetry?.(attempt, outcome.reason);
    await new Promise((resolve) => setTimeout(resolve, delay));
    delay = Math.min(delay * 2, maxRetryDelayMs);
  }
}

type Attempt =
  | { readonly token: string; readonly final?: undefined; readonly reason?: undefined }
  | { readonly token?: undefined; readonly final: boolean; readonly reason: string };

async function attemptToken(
  tokenUrl: URL,
  basic: string,
  form: URLSearchParams,
  { timeoutMs }: { readonly timeoutMs: number },
): Promise<Attempt> {
  let response: Response;
  let text: string;
  try {
    response = await fetch(tokenUrl, {
      method: 'POST',
      headers: {
        authorization: `Basic ${basic}`,
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
      },
      body: form.toString(),
      signal: AbortSignal.timeout(timeoutMs),
      redirect: 'error',
    });
    text = await response.text();
  } catch (error) {
    return { final: false, reason: describe(error) };
  }
  const body = parseJson(text);
  if (response.ok) {
    const token = body?.access_token;
    if (typeof token === 'string' && token.length > 0) return { token };
    return {
      final: true,
      reason: `the token endpoint answered ${response.status} without a token`,
    };
  }
  if ((response.status === 400 || response.status === 401) && typeof body?.error === 'string') {
    return { final: true, reason: `the token endpoint refused the client: ${body.error}` };
  }
  return { final: false, reason: `the token endpoint answered ${response.status}` };
}

function parseJson(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** `fetch` hides the network's reason (DNS, refused, TLS) in `cause`. */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error.name}: ${error.message}${cause}`;
}

/** RFC 6749 2.3.1: each half is form-urlencoded before the two are joined. */
function formEncode(value: string): string {
  return new URLSearchParams({ v: value }).toString().slice(2);
}
