import { describe, expect, it } from 'vitest';
import { AwsServiceError } from '../../../dev-server/webhook/aws-json-endpoint.ts';
import { secretsManagerService } from '../../../dev-server/webhook/secrets-manager-service.ts';

/**
 * The Secrets Manager stand-in's versions and staging labels, by its actions directly: what
 * `put-secret-value` and `get-secret-value --version-stage` do on AWS. Its protocol (SigV4, the
 * JSON errors) is test/dev-server/webhook/local-queue.test.ts's.
 */

function service() {
  let clock = 1_767_225_600_000;
  const secrets = secretsManagerService([{ name: 'hook', value: 'first' }], 'eu-west-1', {
    now: () => clock,
  });
  const call = (action: string, input: Record<string, unknown>) =>
    secrets.actions[action]?.({ SecretId: 'hook', ...input }) as Promise<Record<string, unknown>>;
  return {
    call,
    arn: secrets.arnOf('hook'),
    advance: (ms: number) => {
      clock += ms;
    },
  };
}

const typeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 'answered',
    (error: unknown) => (error instanceof AwsServiceError ? error.type : String(error)),
  );

describe('the local Secrets Manager', () => {
  it('has one version at first, AWSCURRENT, and no AWSPREVIOUS', async () => {
    const { call } = service();

    const current = await call('GetSecretValue', {});
    const named = await call('GetSecretValue', { VersionStage: 'AWSCURRENT' });

    expect(current).toMatchObject({ SecretString: 'first', VersionStages: ['AWSCURRENT'] });
    expect(current.CreatedDate).toBe(1_767_225_600);
    expect(named).toStrictEqual(current);
    expect(await typeOf(call('GetSecretValue', { VersionStage: 'AWSPREVIOUS' }))).toBe(
      'ResourceNotFoundException',
    );
  });

  it('makes a put value AWSCURRENT, with its own creation date, and the one before it AWSPREVIOUS', async () => {
    const { call, arn, advance } = service();
    const first = await call('GetSecretValue', {});
    advance(60_000);

    const put = await call('PutSecretValue', { SecretString: 'second' });
    const current = await call('GetSecretValue', { VersionStage: 'AWSCURRENT' });
    const previous = await call('GetSecretValue', { VersionStage: 'AWSPREVIOUS' });

    expect(put).toStrictEqual({
      ARN: arn,
      Name: 'hook',
      VersionId: current.VersionId,
      VersionStages: ['AWSCURRENT'],
    });
    expect(current).toMatchObject({ SecretString: 'second', CreatedDate: 1_767_225_660 });
    expect(previous).toMatchObject({
      SecretString: 'first',
      VersionId: first.VersionId,
      VersionStages: ['AWSPREVIOUS'],
      CreatedDate: 1_767_225_600,
    });
  });

  it('keeps only the last two values labelled, and still finds an older one by its VersionId', async () => {
    const { call } = service();
    const first = await call('GetSecretValue', {});
    await call('PutSecretValue', { SecretString: 'second' });

    await call('PutSecretValue', { SecretString: 'third' });
    const previous = await call('GetSecretValue', { VersionStage: 'AWSPREVIOUS' });
    const oldest = await call('GetSecretValue', { VersionId: first.VersionId });

    expect(previous.SecretString).toBe('second');
    expect(oldest).toMatchObject({ SecretString: 'first', VersionStages: [] });
    expect(
      await typeOf(
        call('GetSecretValue', { VersionId: first.VersionId, VersionStage: 'AWSCURRENT' }),
      ),
    ).toBe('ResourceNotFoundException');
  });

  it('treats a retried put (same token, same value) as one, and refuses the token with another value', async () => {
    const { call } = service();
    const token = '6c0a5ab2-8a2f-4a2a-9c38-3b1f3c9c0d11';

    const once = await call('PutSecretValue', {
      SecretString: 'second',
      ClientRequestToken: token,
    });
    const again = await call('PutSecretValue', {
      SecretString: 'second',
      ClientRequestToken: token,
    });
    const previous = await call('GetSecretValue', { VersionStage: 'AWSPREVIOUS' });

    expect(again).toStrictEqual(once);
    expect(once.VersionId).toBe(token);
    expect(previous.SecretString).toBe('first');
    expect(
      await typeOf(call('PutSecretValue', { SecretString: 'other', ClientRequestToken: token })),
    ).toBe('ResourceExistsException');
  });

  it('leaves AWSCURRENT where it is for a version put with another label', async () => {
    const { call } = service();

    await call('PutSecretValue', { SecretString: 'staged', VersionStages: ['AWSPENDING'] });

    expect((await call('GetSecretValue', {})).SecretString).toBe('first');
    expect((await call('GetSecretValue', { VersionStage: 'AWSPENDING' })).SecretString).toBe(
      'staged',
    );
    expect(await typeOf(call('GetSecretValue', { VersionStage: 'AWSPREVIOUS' }))).toBe(
      'ResourceNotFoundException',
    );
  });

  it('refuses a put without a value, and any call for another secret', async () => {
    const { call } = service();

    expect(await typeOf(call('PutSecretValue', {}))).toBe('InvalidParameterException');
    expect(await typeOf(call('PutSecretValue', { SecretId: 'other', SecretString: 'x' }))).toBe(
      'ResourceNotFoundException',
    );
    expect(await typeOf(call('GetSecretValue', { SecretId: 'other' }))).toBe(
      'ResourceNotFoundException',
    );
  });
});
