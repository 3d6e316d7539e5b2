import { randomUUID } from 'node:crypto';
import { type AwsJsonService, AwsServiceError, localAccountId } from './aws-json-endpoint.ts';

export interface LocalSecret {
  readonly name: string;
  readonly value: string;
}

/** One version of a secret: its value, when it was made, and the staging labels it carries. */
type SecretVersion = {
  readonly versionId: string;
  readonly value: string;
  /** Seconds since the epoch, as Secrets Manager answers `CreatedDate`. */
  readonly createdDate: number;
  readonly stages: Set<string>;
};

type StoredSecret = LocalSecret & { readonly arn: string; readonly versions: SecretVersion[] };

const notFound = (what = 'secret') =>
  new AwsServiceError(
    'ResourceNotFoundException',
    `Secrets Manager can't find the specified ${what}.`,
  );

const stringInput = (input: Readonly<Record<string, unknown>>, name: string) => {
  const value = input[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value === '') {
    throw new AwsServiceError('InvalidParameterException', `${name} must be a non-empty string.`);
  }
  return value;
};

/**
 * Secrets Manager's GetSecretValue and PutSecretValue (`secretsmanager.<Action>`,
 * `application/x-amz-json-1.1`) for the secrets it is given, each found by its name or its ARN,
 * as the service documents them: a secret has versions, each with a version id, a creation date
 * and staging labels. GetSecretValue answers the version a `VersionId` or `VersionStage` names
 * (`AWSCURRENT` when neither is given); PutSecretValue adds a version, labelled `AWSCURRENT` unless
 * `VersionStages` says otherwise, and when `AWSCURRENT` moves, the version it left becomes
 * `AWSPREVIOUS`. An unknown id, version or label is a `ResourceNotFoundException`.
 */
export function secretsManagerService(
  secrets: readonly LocalSecret[],
  region: string,
  options: { readonly now?: () => number } = {},
): AwsJsonService & { arnOf(name: string): string } {
  const { now = Date.now } = options;
  const newVersion = (
    value: string,
    stages: readonly string[],
    versionId: string = randomUUID(),
  ): SecretVersion => ({
    versionId,
    value,
    createdDate: now() / 1000,
    stages: new Set(stages),
  });
  // Secrets Manager appends six random characters to a secret's name in its ARN.
  const stored: StoredSecret[] = secrets.map((secret) => ({
    ...secret,
    arn: `arn:aws:secretsmanager:${region}:${localAccountId}:secret:${secret.name}-${randomUUID().slice(0, 6)}`,
    versions: [newVersion(secret.value, ['AWSCURRENT'])],
  }));

  const secretOf = (input: Readonly<Record<string, unknown>>) => {
    const id = input.SecretId;
    const secret = stored.find(({ name, arn }) => id === name || id === arn);
    if (secret === undefined) throw notFound();
    return secret;
  };

  /** Moves each label to `version`; the version `AWSCURRENT` leaves becomes `AWSPREVIOUS`. */
  const label = (secret: StoredSecret, version: SecretVersion, stages: readonly string[]) => {
    for (const stage of stages) {
      const holder = secret.versions.find((each) => each.stages.has(stage));
      if (holder === version) continue;
      holder?.stages.delete(stage);
      if (stage === 'AWSCURRENT' && holder !== undefined) {
        for (const each of secret.versions) each.stages.delete('AWSPREVIOUS');
        holder.stages.add('AWSPREVIOUS');
      }
      version.stages.add(stage);
    }
  };

  return {
    signingName: 'secretsmanager',
    targetPrefix: 'secretsmanager',
    jsonVersion: '1.1',
    errorAnswer: (error) => ({ body: { __type: error.type, Message: error.message } }),
    arnOf: (name) => stored.find((secret) => secret.name === name)?.arn ?? name,
    actions: {
      async GetSecretValue(input) {
        const secret = secretOf(input);
        const versionId = stringInput(input, 'VersionId');
        const stage =
          stringInput(input, 'VersionStage') ??
          (versionId === undefined ? 'AWSCURRENT' : undefined);
        const version = secret.versions.find(
          (each) =>
            (versionId === undefined || each.versionId === versionId) &&
            (stage === undefined || each.stages.has(stage)),
        );
        if (version === undefined) {
          throw notFound(
            stage === undefined
              ? `secret value for VersionId: ${versionId}`
              : `secret value for staging label: ${stage}`,
          );
        }
        return {
          ARN: secret.arn,
          Name: secret.name,
          VersionId: version.versionId,
          SecretString: version.value,
          VersionStages: [...version.stages],
          CreatedDate: version.createdDate,
        };
      },

      async PutSecretValue(input) {
        const secret = secretOf(input);
        const value = stringInput(input, 'SecretString');
        if (value === undefined) {
          throw new AwsServiceError(
            'InvalidParameterException',
            'You must provide either SecretString or SecretBinary.',
          );
        }
        const stages = (input.VersionStages as readonly string[] | undefined) ?? ['AWSCURRENT'];
        const token = stringInput(input, 'ClientRequestToken');
        const existing = secret.versions.find((each) => each.versionId === token);
        if (existing !== undefined && existing.value !== value) {
          throw new AwsServiceError(
            'ResourceExistsException',
            'A version with this ClientRequestToken already exists with a different value.',
          );
        }
        // The same token and value again is the same request retried: it changes nothing.
        const version = existing ?? newVersion(value, [], token);
        if (existing === undefined) {
          secret.versions.push(version);
          label(secret, version, stages);
        }
        return {
          ARN: secret.arn,
          Name: secret.name,
          VersionId: version.versionId,
          VersionStages: [...version.stages],
        };
      },
    },
  };
}
