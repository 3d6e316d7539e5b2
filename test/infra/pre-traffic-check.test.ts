import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Operation, operations } from '../../functions/operations.ts';
import {
  preTrafficCheckBundlingOptions,
  preTrafficCheckEsbuildOptions,
} from '../../infra/bundling/bundling.ts';
import type { CfnTemplate } from '../support/cloud-assembly.ts';
import { evaluateCfn } from '../support/cloudformation.ts';
import {
  onlyResource,
  operationResource,
  roleOf,
  roleStatements,
  synthStack,
} from '../support/synth.ts';

let template: Template;
let external: Template;

beforeAll(() => {
  template = synthStack().template;
  external = synthStack({
    externalIssuer: { issuer: 'https://issuer.example.com/', audiences: ['plants'] },
  }).template;
});

const hookOf = (from: Template, operation: Operation) =>
  operationResource(from, 'AWS::Lambda::Function', operation, 'PreTrafficCheckFunction');
const variablesOf = (from: Template, operation: Operation) =>
  (hookOf(from, operation)[1].Properties.Environment as { Variables: Record<string, unknown> })
    .Variables;
const hookStatements = (from: Template, operation: Operation) =>
  roleStatements(from, roleOf(hookOf(from, operation)[1]));

describe('PreTrafficCheck function', () => {
  it('has one hook per operation', () => {
    for (const operation of operations) expect(hookOf(template, operation)).toBeDefined();
  });

  it.each(operations)(
    "runs $name's hook on nodejs24.x, arm64, with a timeout that leaves room for a new Cognito domain",
    (operation) => {
      const [, fn] = hookOf(template, operation);
      expect(fn.Properties).toMatchObject({
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
        Timeout: 180,
        LoggingConfig: { LogFormat: 'JSON' },
      });
    },
  );

  it.each(operations)(
    'names $name as the operation to check and targets the qualified ARN of the version this deploy publishes',
    (operation) => {
      const [versionId] = operationResource(
        template,
        'AWS::Lambda::Version',
        operation,
        'FunctionCurrentVersion',
      );
      expect(variablesOf(template, operation)).toMatchObject({
        TARGET_FUNCTION_ARN: { Ref: versionId },
        OPERATION: operation.name,
      });
    },
  );

  it.each(operations)(
    "gets $name's token from the stack's own pool, client and token URL, for its scope, but never the secret",
    (operation) => {
      const userPool = Object.keys(template.findResources('AWS::Cognito::UserPool'))[0];
      const client = Object.keys(template.findResources('AWS::Cognito::UserPoolClient'))[0];
      const [server] = onlyResource(template, 'AWS::Cognito::UserPoolResourceServer');
      const variables = variablesOf(template, operation);

      expect(variables).toMatchObject({
        USER_POOL_ID: { Ref: userPool },
        CLIENT_ID: { Ref: client },
        TOKEN_SCOPE: {
          'Fn::Join': ['', [{ Ref: server }, `/${operation.scope.split('/')[1]}`]],
        },
      });
      expect(
        evaluateCfn(template.toJSON() as CfnTemplate, variables.TOKEN_SCOPE, {
          region: 'eu-west-1',
          accountId: '123456789012',
          resources: {},
        }),
      ).toBe(operation.scope);
      expect(template.toJSON().Outputs.TokenUrl.Value).toEqual(variables.TOKEN_URL);
      expect(JSON.stringify(variables)).not.toMatch(/secret/i);
    },
  );

  it.each(operations)(
    'with an external issuer, gives $name no token settings: it runs only the checks without a token',
    (operation) => {
      expect(Object.keys(variablesOf(external, operation)).sort()).toEqual([
        'OPERATION',
        'TARGET_FUNCTION_ARN',
      ]);
    },
  );

  // What esbuild makes of these options is in cdk.out: shipped-asset.test.ts holds the hooks' asset
  // to it, byte for byte.
  it('bundles everything but the AWS SDK v3, which the nodejs24.x runtime provides', () => {
    expect(preTrafficCheckBundlingOptions.externalModules).toEqual(['@aws-sdk/*']);
    expect(preTrafficCheckEsbuildOptions.external).toEqual(['@aws-sdk/*']);
  });
});

describe('PreTrafficCheck role', () => {
  it.each(operations)(
    "lets $name's hook invoke exactly its new version, report to its deployment group and read this pool",
    (operation) => {
      const [versionId] = operationResource(
        template,
        'AWS::Lambda::Version',
        operation,
        'FunctionCurrentVersion',
      );
      const [groupId] = operationResource(
        template,
        'AWS::CodeDeploy::DeploymentGroup',
        operation,
        '',
        'Deployment',
      );
      const [applicationId] = onlyResource(template, 'AWS::CodeDeploy::Application');
      const userPool = Object.keys(template.findResources('AWS::Cognito::UserPool'))[0];
      const [, fn] = hookOf(template, operation);
      const { LogGroup } = fn.Properties.LoggingConfig as { LogGroup: { Ref: string } };

      expect(hookStatements(template, operation)).toEqual([
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
    },
  );

  it.each(operations)(
    'with an external issuer, gives $name’s hook no Cognito permission at all',
    (operation) => {
      expect(JSON.stringify(hookStatements(external, operation))).not.toContain('cognito-idp');
      expect(JSON.stringify(hookStatements(external, operation))).toContain(
        'lambda:InvokeFunction',
      );
    },
  );

  it('gives each hook a role of its own, with no managed policy, apart from the functions', () => {
    const roles = operations.flatMap((operation) => [
      roleOf(hookOf(template, operation)[1]),
      roleOf(operationResource(template, 'AWS::Lambda::Function', operation, 'Function')[1]),
    ]);

    expect(new Set(roles).size).toBe(roles.length);
    for (const operation of operations) {
      const roleId = roleOf(hookOf(template, operation)[1]);
      expect(template.toJSON().Resources[roleId].Properties).not.toHaveProperty(
        'ManagedPolicyArns',
      );
    }
  });
});

describe('PreTrafficCheck log group', () => {
  it.each(operations)(
    "keeps $name's hook log 30 days, after the stack is deleted, but not after a failed first deploy",
    (operation) => {
      const [, fn] = hookOf(template, operation);
      const { LogGroup } = fn.Properties.LoggingConfig as { LogGroup: { Ref: string } };
      expect(template.toJSON().Resources[LogGroup.Ref]).toMatchObject({
        Properties: { RetentionInDays: 30 },
        DeletionPolicy: 'RetainExceptOnCreate',
      });
    },
  );
});
