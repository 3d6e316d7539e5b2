import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import type { CfnTemplate } from '../../bench/support/cloud-assembly.ts';
import { type Deployment, evaluateCfn } from '../../bench/support/cloudformation.ts';
import { type Operation, operations } from '../../functions/operations.ts';
import {
  preTrafficCheckBundlingOptions,
  preTrafficCheckEsbuildOptions,
} from '../../infra/bundling/bundling.ts';
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
/** An operation's function as deployed, unqualified. */
const deployedArn = (operation: Operation) =>
  `arn:aws:lambda:eu-west-1:123456789012:function:PlantStore-test-${operation.name}`;

/** A template value as CloudFormation makes it, with each function and its version deployed. */
function evaluate(from: Template, value: unknown): unknown {
  const resources: Deployment['resources'] = Object.fromEntries(
    operations.flatMap((operation) => [
      [
        operationResource(from, 'AWS::Lambda::Function', operation, 'Function')[0],
        { attributes: { Arn: deployedArn(operation) } },
      ],
      [
        operationResource(from, 'AWS::Lambda::Version', operation, 'FunctionCurrentVersion')[0],
        { ref: `${deployedArn(operation)}:7` },
      ],
    ]),
  );
  return evaluateCfn(from.toJSON() as CfnTemplate, value, {
    region: 'eu-west-1',
    accountId: '123456789012',
    resources,
  });
}

/** What the hook's role may invoke, evaluated, in order. */
const invokable = (from: Template, operation: Operation) => {
  const invoke = hookStatements(from, operation).filter(
    (statement) => statement.Action === 'lambda:InvokeFunction',
  );
  expect(invoke).toHaveLength(1);
  return [invoke[0]?.Resource]
    .flat()
    .map((resource) => String(evaluate(from, resource)))
    .toSorted();
};

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
    "gets $name's token from the stack's own pool, client and token URL, for its own scope, but never the secret",
    (operation) => {
      const userPool = Object.keys(template.findResources('AWS::Cognito::UserPool'))[0];
      const client = Object.keys(template.findResources('AWS::Cognito::UserPoolClient'))[0];
      const [server] = onlyResource(template, 'AWS::Cognito::UserPoolResourceServer');
      const variables = variablesOf(template, operation);

      expect(variables).toMatchObject({
        USER_POOL_ID: { Ref: userPool },
        CLIENT_ID: { Ref: client },
      });
      // The resource server's scope, as tokens carry it: the pool would refuse any other.
      expect(JSON.stringify(variables.TOKEN_SCOPE)).toContain(JSON.stringify({ Ref: server }));
      expect(evaluate(template, variables.TOKEN_SCOPE)).toBe(operation.scope);
      expect(template.toJSON().Outputs.TokenUrl.Value).toEqual(variables.TOKEN_URL);
      expect(JSON.stringify(variables)).not.toMatch(/secret/i);
    },
  );

  it.each(operations)(
    "tells $name's hook the stage's table, where its fixture keeps the check plant",
    (operation) => {
      const [table] = onlyResource(template, 'AWS::DynamoDB::Table');

      expect(variablesOf(template, operation).PLANTS_TABLE_NAME).toEqual({ Ref: table });
    },
  );

  it.each(operations)(
    "names no alias in $name's hook or its role: its check waits for no other operation's traffic shift",
    (operation) => {
      const aliases = Object.keys(template.findResources('AWS::Lambda::Alias'));
      const [, hook] = hookOf(template, operation);
      const written = JSON.stringify([hook, hookStatements(template, operation)]);

      expect(aliases).toHaveLength(operations.length);
      expect(aliases.filter((alias) => written.includes(`"${alias}"`))).toEqual([]);
    },
  );

  it.each(operations)(
    'with an external issuer, gives $name no token settings and no table: it runs only the checks without a token, on no plant',
    (operation) => {
      expect(Object.keys(variablesOf(external, operation)).sort()).toEqual(
        ['OPERATION', 'TARGET_FUNCTION_ARN'].sort(),
      );
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
    "lets $name's hook invoke its version, write its log, report to its deployment group, read this pool and keep its plant in the table, nothing more",
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
      const [table] = onlyResource(template, 'AWS::DynamoDB::Table');
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
          Action: ['dynamodb:DeleteItem', 'dynamodb:GetItem', 'dynamodb:PutItem'],
          Resource: { 'Fn::GetAtt': [table, 'Arn'] },
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
    "lets $name's hook invoke its new version and no other function, with a token or without",
    (operation) => {
      expect(invokable(template, operation)).toEqual([`${deployedArn(operation)}:7`]);
      expect(invokable(external, operation)).toEqual([`${deployedArn(operation)}:7`]);
    },
  );

  it.each(operations)(
    'with an external issuer, gives $name’s hook no Cognito and no table permission at all',
    (operation) => {
      expect(JSON.stringify(hookStatements(external, operation))).not.toMatch(
        /cognito-idp|dynamodb/,
      );
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
