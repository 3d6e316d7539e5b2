import { randomUUID } from 'node:crypto';
import { type AwsJsonService, AwsServiceError, localAccountId } from './aws-json-endpoint.ts';

export interface LocalSecret {
  readonly name: string;
  readonly value: string;
}

/**
 * Secrets Manager's GetSecretValue (`secretsmanager.GetSecretValue`,
 * `application/x-amz-json-1.1`) for the secrets it is given, each found by its name or its ARN,
 * answered as the service documents: the ARN, name, version id and stages, creation date and
 * `SecretString`. Any other id is a `ResourceNotFoundException`.
 */
export function secretsManagerService(
  secrets: readonly LocalSecret[],
  region: string,
): AwsJsonService & { arnOf(name: string): string } {
  const created = Math.floor(Date.now() / 1000);
  // Secrets Manager appends six random characters to a secret's name in its ARN.
  const stored = secrets.map((secret) => ({
    ...secret,
    arn: `arn:aws:secretsmanager:${region}:${localAccountId}:secret:${secret.name}-${randomUUID().slice(0, 6)}`,
    versionId: randomUUID(),
  }));
  return {
    signingName: 'secretsmanager',
    targetPrefix: 'secretsmanager',
    jsonVersion: '1.1',
    errorAnswer: (error) => ({ body: { __type: error.type, Message: error.message } }),
    arnOf: (name) => stored.find((secret) => secret.name === name)?.arn ?? name,
    actions: {
      async GetSecretValue(input) {
        const id = input.SecretId;
        const secret = stored.find(({ name, arn }) => id === name || id === arn);
        const stage = input.VersionStage ?? 'AWSCURRENT';
        const version = input.VersionId ?? secret?.versionId;
        if (secret === undefined || stage !== 'AWSCURRENT' || version !== secret.versionId) {
          throw new AwsServiceError(
            'ResourceNotFoundException',
            "Secrets Manager can't find the specified secret.",
          );
        }
        return {
          ARN: secret.arn,
          Name: secret.name,
          VersionId: secret.versionId,
          SecretString: secret.value,
          VersionStages: ['AWSCURRENT'],
          CreatedDate: created,
        };
      },
    },
  };
}
