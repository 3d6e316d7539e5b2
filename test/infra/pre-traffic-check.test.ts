import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Template } from 'aws-cdk-lib/assertions';
import { build } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  bundleFileName,
  preTrafficCheckBundlingOptions,
  preTrafficCheckEsbuildOptions,
} from '../../infra/bundling/bundling.ts';
import {
  onlyResource,
  type TemplateResource as Resource,
  resourceAt,
  synthStack,
} from '../support/synth.ts';

let template: Template;
let external: Template;

beforeAll(() => {
  template = synthStack({ bundle: false }).template;
  external = synthStack({
    bundle: false,
    externalIssuer: { issuer: 'https://issuer.example.com/', audiences: ['plants'] },
  }).template;
});

const hook = (from: Template) =>
  resourceAt(from, 'AWS::Lambda::Function', 'PreTrafficCheckFunction');

/** The statements of the policies attached to the hook's role. */
const hookStatements = (from: Template): unknown[] => {
  const [, fn] = hook(from);
  const roleId = (fn.Properties.Role as { 'Fn::GetAtt': [string] })['Fn::GetAtt'][0];
  return Object.values(from.findResources('AWS::IAM::Policy'))
    .filter(
      (policy) =>
        JSON.stringify((policy as Resource).Properties.Roles) === JSON.stringify([{ Ref: roleId }]),
    )
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement);
};

describe('PreTrafficCheck function', () => {
  it('runs on nodejs24.x, arm64, with a timeout that leaves room for a new Cognito domain', () => {
    const [, fn] = hook(template);
    expect(fn.Properties).toMatchObject({
      Runtime: 'nodejs24.x',
      Architectures: ['arm64'],
      Handler: 'index.handler',
      Timeout: 180,
      LoggingConfig: { LogFormat: 'JSON' },
    });
  });

  it('targets the qualified ARN of the version this deploy publishes', () => {
    const [versionId] = onlyResource(template, 'AWS::Lambda::Version');
    const [, fn] = hook(template);
    expect(fn.Properties.Environment).toMatchObject({
      Variables: { TARGET_FUNCTION_ARN: { Ref: versionId } },
    });
  });

  it("gets a token from the stack's own pool, client and token URL, but never the secret", () => {
    const userPool = Object.keys(template.findResources('AWS::Cognito::UserPool'))[0];
    const client = Object.keys(template.findResources('AWS::Cognito::UserPoolClient'))[0];
    const [, fn] = hook(template);
    const variables = (fn.Properties.Environment as { Variables: Record<string, unknown> })
      .Variables;
    expect(variables).toMatchObject({
      USER_POOL_ID: { Ref: userPool },
      CLIENT_ID: { Ref: client },
      TOKEN_SCOPE: {
        'Fn::Join': ['', [{ Ref: expect.stringMatching(/ResourceServer/) }, '/write']],
      },
    });
    expect(template.toJSON().Outputs.TokenUrl.Value).toEqual(variables.TOKEN_URL);
    expect(JSON.stringify(variables)).not.toMatch(/secret/i);
  });

  it('with an external issuer, gets no token settings: it runs only the checks without a token', () => {
    const [, fn] = hook(external);
    const variables = (fn.Properties.Environment as { Variables: Record<string, unknown> })
      .Variables;
    expect(Object.keys(variables).sort()).toEqual(['NODE_OPTIONS', 'TARGET_FUNCTION_ARN']);
  });

  it('bundles everything but the AWS SDK v3, which the nodejs24.x runtime provides', () => {
    expect(preTrafficCheckBundlingOptions.externalModules).toEqual(['@aws-sdk/*']);
    expect(preTrafficCheckEsbuildOptions.external).toEqual(['@aws-sdk/*']);
  });

  it('ships the exact bundle preTrafficCheckEsbuildOptions builds', async () => {
    const { app, template: bundled } = synthStack();
    const [, fn] = hook(bundled);
    const { S3Key } = fn.Properties.Code as { S3Key: string };
    const assetDir = path.join(app.synth().directory, `asset.${S3Key.replace(/\.zip$/, '')}`);
    const shipped = await readFile(path.join(assetDir, bundleFileName), 'utf8');

    const outdir = await mkdtemp(path.join(tmpdir(), 'pre-traffic-bundle-'));
    try {
      await build({ ...preTrafficCheckEsbuildOptions, outdir, logLevel: 'silent' });
      expect(await readFile(path.join(outdir, bundleFileName), 'utf8')).toBe(shipped);
    } finally {
      await rm(outdir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('PreTrafficCheck role', () => {
  it('may invoke exactly the new version, report to this deployment group and read this pool', () => {
    const [versionId] = onlyResource(template, 'AWS::Lambda::Version');
    const [groupId] = onlyResource(template, 'AWS::CodeDeploy::DeploymentGroup');
    const [applicationId] = onlyResource(template, 'AWS::CodeDeploy::Application');
    const userPool = Object.keys(template.findResources('AWS::Cognito::UserPool'))[0];
    const [, fn] = hook(template);
    const { LogGroup } = fn.Properties.LoggingConfig as { LogGroup: { Ref: string } };

    expect(hookStatements(template)).toEqual([
      {
        Effect: 'Allow',
        Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        Resource: { 'Fn::GetAtt': [LogGroup.Ref, 'Arn'] },
      },
      { Effect: 'Allow', Action: 'lambda:InvokeFunction', Resource: { Ref: versionId } },
      {
        Effect: 'Allow',
        Action: 'cognito-idp:DescribeUserPoolClient',
        Resource: { 'Fn::GetAtt': [userPool, 'Arn'] },
      },
      {
        Effect: 'Allow',
        Action: 'codedeploy:PutLifecycleEventHookExecutionStatus',
        Resource: {
          'Fn::Join': [
            '',
            [
              'arn:',
              { Ref: 'AWS::Partition' },
              ':codedeploy:',
              { Ref: 'AWS::Region' },
              ':',
              { Ref: 'AWS::AccountId' },
              ':deploymentgroup:',
              { Ref: applicationId },
              '/',
              { Ref: groupId },
            ],
          ],
        },
      },
    ]);
  });

  it('with an external issuer, has no Cognito permission at all', () => {
    expect(JSON.stringify(hookStatements(external))).not.toContain('cognito-idp');
    expect(JSON.stringify(hookStatements(external))).toContain('lambda:InvokeFunction');
  });

  it('has a role of its own, with no managed policy', () => {
    const [, fn] = hook(template);
    const roleId = (fn.Properties.Role as { 'Fn::GetAtt': [string] })['Fn::GetAtt'][0];
    const [, createPlant] = resourceAt(template, 'AWS::Lambda::Function', 'CreatePlantFunction');
    expect(createPlant.Properties.Role).not.toEqual(fn.Properties.Role);
    expect(template.toJSON().Resources[roleId].Properties).not.toHaveProperty('ManagedPolicyArns');
  });
});

describe('PreTrafficCheck log group', () => {
  it('keeps 30 days, after the stack is deleted, but not after a failed first deploy', () => {
    const [, fn] = hook(template);
    const { LogGroup } = fn.Properties.LoggingConfig as { LogGroup: { Ref: string } };
    expect(template.toJSON().Resources[LogGroup.Ref]).toMatchObject({
      Properties: { RetentionInDays: 30 },
      DeletionPolicy: 'RetainExceptOnCreate',
    });
  });
});
