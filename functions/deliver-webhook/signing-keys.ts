import { SigningSecretError, signingKeyOf } from './signature.ts';

/**
 * How long a container signs with the secret it read before reading it again: a rotation
 * (`put-secret-value`) reaches every deliverer within this, with one read per container per period.
 */
export const signingKeyTtlMs = 5 * 60_000;

/**
 * How long after the current secret was created the previous one still signs too, so that a
 * subscriber can move to the new secret at its own pace within a day
 * (docs/decisions/0148-secret-rotation-overlap.md).
 */
export const previousSecretOverlapMs = 24 * 60 * 60_000;

/** After a failed re-read, the kept keys sign for this long before the next read is tried. */
export const failedReadRetryMs = 60_000;

/** A Secrets Manager staging label the deliverer reads. */
export type VersionStage = 'AWSCURRENT' | 'AWSPREVIOUS';

/** What one read of the secret found: the keys, and until when the previous one signs. */
export type SigningSecrets = {
  readonly current: Buffer;
  readonly previous?: Buffer;
  /** Milliseconds since the epoch; the previous key is not used from then on. */
  readonly previousUntil?: number;
};

/**
 * Reads the signing secret by stage with `getSecretValue` (GetSecretValue's answer): always the
 * current version, and the previous one only while the current version is younger than
 * `overlapMs`. A previous version that no longer exists, or is not a signing secret, is left out:
 * it must not stop the current one from signing.
 */
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

/** A secret with no version in the stage asked for (the first version has no AWSPREVIOUS). */
const isNotFound = (error: unknown) =>
  (error as { type?: unknown } | undefined)?.type === 'ResourceNotFoundException';

export type RefreshingKeysOptions = {
  /** @default signingKeyTtlMs */
  readonly ttlMs?: number;
  /** @default failedReadRetryMs */
  readonly retryMs?: number;
  /** @default Date.now */
  readonly now?: () => number;
  /** Told of a failed re-read, after which the keys already read keep signing. */
  readonly onKeptAfterFailure?: (error: unknown) => void;
};

/**
 * The keys to sign with, read (`read`) on first use and again on the first use after `ttlMs`:
 * the current key first, then the previous one while it is inside its overlap. Concurrent callers
 * share one read. A failed first read is forgotten, so the next caller reads again; a failed
 * re-read keeps the keys already read, and is tried again after `retryMs`.
 */
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
