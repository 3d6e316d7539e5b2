import {
  type CognitoIdentityProviderClient,
  DescribeUserPoolClientCommand,
} from '@aws-sdk/client-cognito-identity-provider';
import type { TokenSource } from './hook-config.ts';

/** The pool refused the client, or its domain never answered in time. */
export class TokenUnavailableError extends Error {
  override name = 'TokenUnavailableError';
}

/** Read when needed, not kept in the environment, where the function's configuration shows it. */
export async function readClientSecret(
  cognito: CognitoIdentityProviderClient,
  { userPoolId, clientId }: Pick<TokenSource, 'userPoolId' | 'clientId'>,
  abortSignal: AbortSignal,
): Promise<string> {
  const command = new DescribeUserPoolClientCommand({ UserPoolId: userPoolId, ClientId: clientId });
  const { UserPoolClient } = await cognito.send(command, { abortSignal });
  if (!UserPoolClient?.ClientSecret)
    throw new TokenUnavailableError(`app client ${clientId} has no secret`);
  return UserPoolClient.ClientSecret;
}

export type TokenRequest = {
  readonly tokenUrl: URL;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly scope?: string | undefined;
  /** `Date.now()` after which no attempt starts; the last one ends by it too. */
  readonly deadline: number;
  readonly attemptTimeoutMs?: number;
  /** Doubles after each failed attempt, up to `maxRetryDelayMs`. */
  readonly firstRetryDelayMs?: number;
  readonly maxRetryDelayMs?: number;
  readonly onRetry?: (attempt: number, reason: string) => void;
};

/**
 * Client-credentials grant, Basic auth of form-encoded halves (RFC 6749 4.4, 2.3.1). A pool domain
 * this deployment made may not answer for a minute, so all but an OAuth error is retried until
 * `deadline`; an OAuth error or a 200 without a token will not go away by waiting.
 */
export async function requestClientCredentialsToken(request: TokenRequest): Promise<string> {
  const { deadline, attemptTimeoutMs = 10_000, maxRetryDelayMs = 8_000 } = request;
  const form = new URLSearchParams({ grant_type: 'client_credentials' });
  if (request.scope !== undefined) form.set('scope', request.scope);
  const encoded = [request.clientId, request.clientSecret].map((half) =>
    new URLSearchParams({ v: half }).toString().slice(2),
  );
  const basic = Buffer.from(encoded.join(':')).toString('base64');
  let delay = request.firstRetryDelayMs ?? 1_000;
  for (let attempt = 1; ; attempt += 1) {
    let reason: string;
    try {
      const response = await fetch(request.tokenUrl, {
        method: 'POST',
        headers: {
          authorization: `Basic ${basic}`,
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
        },
        body: form.toString(),
        signal: AbortSignal.timeout(Math.max(1, Math.min(attemptTimeoutMs, deadline - Date.now()))),
        redirect: 'error',
      });
      const body = jsonObject(await response.text());
      if (response.ok) {
        if (typeof body.access_token === 'string' && body.access_token !== '') {
          return body.access_token;
        }
        throw new TokenUnavailableError(
          `the token endpoint answered ${response.status} without a token`,
        );
      }
      if ([400, 401].includes(response.status) && typeof body.error === 'string') {
        throw new TokenUnavailableError(`the token endpoint refused the client: ${body.error}`);
      }
      reason = `the token endpoint answered ${response.status}`;
    } catch (error) {
      if (error instanceof TokenUnavailableError) throw error;
      // `fetch` hides the network's reason (DNS, refused, TLS) in `cause`.
      const { name, message, cause } = error as Error;
      reason = `${name}: ${message}${cause instanceof Error ? `: ${cause.message}` : ''}`;
    }
    if (Date.now() + delay >= deadline) {
      throw new TokenUnavailableError(
        `no token from ${request.tokenUrl.origin} after ${attempt} attempts: ${reason}`,
      );
    }
    request.onRetry?.(attempt, reason);
    await new Promise((resolve) => setTimeout(resolve, delay));
    delay = Math.min(delay * 2, maxRetryDelayMs);
  }
}

export function jsonObject(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
