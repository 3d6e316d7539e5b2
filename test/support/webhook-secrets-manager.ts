import { randomUUID } from 'node:crypto';

/** An error as the deliverer's AWS client raises a service's: its `type` names it. */
const serviceError = (type: string, message: string) => Object.assign(new Error(message), { type });

type SecretVersion = {
  readonly versionId: string;
  readonly value: string;
  /** Seconds since the epoch, as Secrets Manager answers `CreatedDate`. */
  readonly createdDate: number;
  readonly stages: Set<string>;
};

/**
 * Secrets Manager's GetSecretValue and PutSecretValue for the secrets given, each found by its
 * name, with versions labelled as the service labels them: GetSecretValue answers the version its
 * `VersionStage` names (`AWSCURRENT` by default), or `ResourceNotFoundException`; PutSecretValue adds
 * a version labelled `AWSCURRENT`, and the version that held that label becomes `AWSPREVIOUS`. What
 * a rotation test calls, as the deliverer's `readSigningSecrets` reads a secret.
 */
export function secretsManagerService(
  secrets: readonly { readonly name: string; readonly value: string }[],
  _region: string,
  options: { readonly now?: () => number } = {},
): {
  readonly actions: Record<string, (input: Record<string, unknown>) => Promise<unknown>>;
} {
  const { now = Date.now } = options;
  const version = (value: string, stage: string): SecretVersion => ({
    versionId: randomUUID(),
    value,
    createdDate: now() / 1000,
    stages: new Set([stage]),
  });
  const stored = new Map(secrets.map(({ name, value }) => [name, [version(value, 'AWSCURRENT')]]));
  const versionsOf = (input: Record<string, unknown>) => {
    const versions = stored.get(String(input.SecretId));
    if (versions === undefined) {
      throw serviceError('ResourceNotFoundException', "Secrets Manager can't find the secret.");
    }
    return versions;
  };

  return {
    actions: {
      async GetSecretValue(input) {
        const stage = String(input.VersionStage ?? 'AWSCURRENT');
        const found = versionsOf(input).find(({ stages }) => stages.has(stage));
        if (found === undefined) {
          throw serviceError(
            'ResourceNotFoundException',
            `Secrets Manager can't find the specified secret value for staging label: ${stage}`,
          );
        }
        return {
          Name: input.SecretId,
          VersionId: found.versionId,
          SecretString: found.value,
          VersionStages: [...found.stages],
          CreatedDate: found.createdDate,
        };
      },
      async PutSecretValue(input) {
        const versions = versionsOf(input);
        for (const each of versions) {
          each.stages.delete('AWSPREVIOUS');
          if (each.stages.delete('AWSCURRENT')) each.stages.add('AWSPREVIOUS');
        }
        const added = version(String(input.SecretString), 'AWSCURRENT');
        versions.push(added);
        return { Name: input.SecretId, VersionId: added.versionId, VersionStages: ['AWSCURRENT'] };
      },
    },
  };
}
