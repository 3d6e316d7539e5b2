import { SigningSecretError, signingKeyOf } from './signature.ts';

/** A rotation reaches every deliverer within this. */
export const signingKeyTtlMs = 5 * 60_000;

/** The previous secret signs too (docs/decisions/0148-secret-rotation-overlap.md). */
export const previousSecretOverlapMs = 24 * 60 * 60_000;

export const failedReadRetryMs = 60_000;

export type VersionStage = 'AWSCURRENT' | 'AWSPREVIOUS';

export type SigningSecrets = {
  readonly current: Buffer;
  readonly previous?: Buffer;
  readonly previousUntil?: number;
};

/** A previous version that is gone or broken is left out: the current one must still sign. */
export async function readSigningSecrets(
  getSecretValue: (stage: VersionStage) => Promise<Record<string, unknown>>,
  options: { readonly overlapMs?: number; readonly now?: () => number } = {},
): Promise<SigningSecrets> {
  const { overlapMs = previousSecretOverlapMs, now = Date.now } = options;
  const answer = await getSecretValue('AWSCURRENT');
  const current = signingKeyOf(secretStringOf(answer));
  // Secrets Manager answers CreatedDate in seconds since the epoch.
  const createdAt = typeof answer.CreatedDate === 'number' ? answer.CreatedDate * 1000 : undefined;
  if (createdAt === undefined || now() >= createdAt + overlapMs) return { current };
  let previous: Buffer;
  try {
    previous = signingKeyOf(secretStringOf(await getSecretValue('AWSPREVIOUS')));
  } catch (error) {
    if (error instanceof SigningSecretError || isNotFound(error)) return { current };
    throw error;
  }
  return { current, previous, previousUntil: createdAt + overlapMs };
}

function secretStringOf(answer: Record<string, unknown>): string {
  if (typeof answer.SecretString !== 'string') {
    throw new SigningSecretError('the signing secret has no SecretString');
  }
  return answer.SecretString;
}

/** The first version has no AWSPREVIOUS. */
const isNotFound = (error: unknown) =>
  (error as { type?: unknown } | undefined)?.type === 'ResourceNotFoundException';

export type RefreshingKeysOptions = {
  readonly ttlMs?: number;
  readonly retryMs?: number;
  readonly now?: () => number;
  readonly onKeptAfterFailure?: (error: unknown) => void;
};

/** Concurrent callers share one read; a failed re-read keeps the keys already read. */

export function refreshingSigningKeys(
  read: () => Promise<SigningSecrets>,
  options: RefreshingKeysOptions = {},
): () => Promise<readonly Buffer[]> {
  const { ttlMs = signingKeyTtlMs, retryMs = failedReadRetryMs, now = Date.now } = options;
  let secrets: SigningSecrets | undefined;
  let readAgainAt = 0;
  let reading: Promise<SigningSecrets> | undefined;

  const refresh = (): Promise<SigningSecrets> => {
    reading ??= read()
      .then((found) => {
        secrets = found;
        readAgainAt = now() + ttlMs;
        return found;
      })
      .catch((error: unknown) => {
        if (secrets === undefined) throw error;
        readAgainAt = now() + retryMs;
        options.onKeptAfterFailure?.(error);
        return secrets;
      })
      .finally(() => {
        reading = undefined;
      });
    return reading;
  };

  return async () => {
    const found = secrets !== undefined && now() < readAgainAt ? secrets : await refresh();
    const { current, previous, previousUntil = 0 } = found;
    return previous !== undefined && now() < previousUntil ? [current, previous] : [current];
  };
}
