import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import type { CfnTemplate } from '../../bench/support/cloud-assembly.ts';
import { type Deployment, evaluateCfn } from '../../bench/support/cloudformation.ts';
import { type Operation, operations, routeKey } from '../../functions/operations.ts';
import {
  onlyResource,
  operationResource,
  roleOf,
  roleStatements,
  synthStack,
} from '../support/synth.ts';

/**
 * The template only: what esbuild makes of each function is the shipped asset's test
 * (shipped-asset.test.ts), which bundles as `cdk synth` does.
 */
let template: Template;

beforeAll(() => {
  template = synthStack().template;
});

const byName = (name: string): Operation => {
  const found = operations.find((operation) => operation.name === name);
  if (found === undefined) throw new Error(`no operation ${name}`);
  return found;
};
const functionOf = (from: Template, operation: Operation) =>
  operationResource(from, 'AWS::Lambda::Function', operation, 'Function');
const versionOf = (from: Template, operation: Operation) =>
  operationResource(from, 'AWS::Lambda::Version', operation, 'FunctionCurrentVersion');
const logicalId = (type: string): string => onlyResource(template, type)[0];

/** What CloudFormation makes of the operation's published version's description in this deployment. */
const versionDescription = (from: Template, operation: Operation, deployment: Deployment) => {
  const [, version] = versionOf(from, operation);
  return String(
    evaluateCfn(from.toJSON() as CfnTemplate, version.Properties.Description, deployment),
  );
};

/** A deployment of the stack: the physical ids CloudFormation gave the table, pool and client. */
const deployedWith = (
  names: { table: string; pool: string; client: string },
  region = 'eu-west-1',
): Deployment => ({
  region,
  accountId: '123456789012',
  resources: {
    'AWS::DynamoDB::Table': { ref: names.table },
    'AWS::Cognito::UserPool': {
      ref: names.pool,
      attributes: { ProviderURL: `https://cognito-idp.${region}.amazonaws.com/${names.pool}` },
    },
    'AWS::Cognito::UserPoolClient': { ref: names.client },
  },
});

const first = {
  table: 'PlantStore-test-PlantsTable4EFC45DE-1S2T3U4V5W6X7',
  pool: 'eu-west-1_Pl4ntTest',
  client: '4p1antst0reclient0id0abcde',
};

/** The operation's `AUTH_SCOPE`, as CloudFormation evaluates it in `from`'s deployment. */
const scopeOf = (from: Template, operation: Operation): unknown => {
  const [, fn] = functionOf(from, operation);
  const variables = (fn.Properties.Environment as { Variables: { AUTH_SCOPE: unknown } }).Variables;
  return evaluateCfn(from.toJSON() as CfnTemplate, variables.AUTH_SCOPE, deployedWith(first));
};

describe('OperationFunction, one per operation', () => {
  it('makes a function for each operation and no other, besides each one’s pre-traffic check', () => {
    const functions = Object.keys(template.findResources('AWS::Lambda::Function'));

    expect(functions).toHaveLength(2 * operations.length);
    for (const operation of operations) expect(functionOf(template, operation)).toBeDefined();
  });

  it("keeps POST /plants's logical ids, so that no deploy replaces its function", () => {
    const create = byName('create-plant');

    expect(functionOf(template, create)[0]).toBe('CreatePlantFunctionAE9062BF');
    expect(operationResource(template, 'AWS::IAM::Role', create, 'Role')[0]).toBe(
      'CreatePlantRole03794732',
    );
    expect(operationResource(template, 'AWS::Logs::LogGroup', create, 'LogGroup')[0]).toBe(
      'CreatePlantLogGroupEA4B80C3',
    );
    expect(operationResource(template, 'AWS::Lambda::Alias', create, 'LiveAlias')[0]).toBe(
      'CreatePlantLiveAlias6167AC0B',
    );
  });

  it.each(operations)(
    'runs $name on nodejs24.x, arm64, 1024 MB, with JSON logs and active tracing',
    (operation) => {
      const [, fn] = functionOf(template, operation);

      expect(fn.Properties).toMatchObject({
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
        MemorySize: 1024,
        Timeout: 10,
        LoggingConfig: {
          LogFormat: 'JSON',
          SystemLogLevel: 'INFO',
          LogGroup: { Ref: expect.any(String) },
        },
        TracingConfig: { Mode: 'Active' },
        Description: `${routeKey(operation)}: ${operation.summary}`,
      });
    },
  );

  it.each(operations)(
    'gives $name the table, the Cognito issuer, its JWKS, the client as audience, and its scope',
    (operation) => {
      const [, fn] = functionOf(template, operation);
      const userPool = logicalId('AWS::Cognito::UserPool');
      const scopeName = operation.scope.split('/')[1];

      expect(fn.Properties.Environment).toEqual({
        Variables: {
          PLANTS_TABLE_NAME: { Ref: logicalId('AWS::DynamoDB::Table') },
          AUTH_ISSUER: { 'Fn::GetAtt': [userPool, 'ProviderURL'] },
          AUTH_JWKS_URL: {
            'Fn::Join': [
              '',
              [{ 'Fn::GetAtt': [userPool, 'ProviderURL'] }, '/.well-known/jwks.json'],
            ],
          },
          AUTH_AUDIENCE: { Ref: logicalId('AWS::Cognito::UserPoolClient') },
          AUTH_SCOPE: {
            'Fn::Join': [
              '',
              [{ Ref: logicalId('AWS::Cognito::UserPoolResourceServer') }, `/${scopeName}`],
            ],
          },
        },
      });
    },
  );

  it.each(operations)('asks $name for $scope, as tokens of the pool carry it', (operation) => {
    expect(scopeOf(template, operation)).toBe(operation.scope);
  });
});

describe('OperationFunction role', () => {
  const dynamodbActions = (operation: Operation) =>
    roleStatements(template, roleOf(functionOf(template, operation)[1])).filter((statement) =>
      [statement.Action].flat().some((action) => action.startsWith('dynamodb:')),
    );

  it.each(operations)(
    'lets $name make exactly its own DynamoDB calls, on the plants table ARN only',
    (operation) => {
      const [action, ...more] = operation.dynamodbActions;
      expect(dynamodbActions(operation)).toEqual([
        {
          Effect: 'Allow',
          // A single action is written as a string.
          Action: more.length === 0 ? action : [...operation.dynamodbActions].sort(),
          Resource: { 'Fn::GetAtt': [logicalId('AWS::DynamoDB::Table'), 'Arn'] },
        },
      ]);
    },
  );

  it.each(operations)(
    'gives $name a role of its own, which writes logs only to its own log group',
    (operation) => {
      const [, fn] = functionOf(template, operation);
      const roleId = roleOf(fn);
      const { LogGroup } = fn.Properties.LoggingConfig as { LogGroup: { Ref: string } };

      expect(
        roleStatements(template, roleId).filter((statement) =>
          [statement.Action].flat().some((action) => action.startsWith('logs:')),
        ),
      ).toEqual([
        {
          Effect: 'Allow',
          Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
          Resource: { 'Fn::GetAtt': [LogGroup.Ref, 'Arn'] },
        },
      ]);
      const role = template.toJSON().Resources[roleId];
      expect(role.Properties).toMatchObject({
        AssumeRolePolicyDocument: {
          Statement: [
            {
              Action: 'sts:AssumeRole',
              Effect: 'Allow',
              Principal: { Service: 'lambda.amazonaws.com' },
            },
          ],
        },
      });
      expect(role.Properties).not.toHaveProperty('ManagedPolicyArns');
      expect(role.Properties).not.toHaveProperty('RoleName');
      const others = operations
        .filter((other) => other !== operation)
        .map((other) => roleOf(functionOf(template, other)[1]));
      expect(others).not.toContain(roleId);
    },
  );
});

describe('OperationFunction versions and alias', () => {
  it('keeps every version it publishes, when replaced and when dropped from the template', () => {
    const versions = Object.values(template.findResources('AWS::Lambda::Version'));

    expect(versions).toHaveLength(operations.length);
    for (const version of versions) {
      expect(version).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
    }
  });

  it.each(operations)(
    "points $name's alias live at the version this deploy publishes",
    (operation) => {
      const [functionId] = functionOf(template, operation);
      const [versionId, version] = versionOf(template, operation);
      const [, alias] = operationResource(template, 'AWS::Lambda::Alias', operation, 'LiveAlias');

      expect(version.Properties.FunctionName).toEqual({ Ref: functionId });
      expect(alias.Properties).toEqual({
        Name: 'live',
        FunctionName: { Ref: functionId },
        FunctionVersion: { 'Fn::GetAtt': [versionId, 'Version'] },
      });
    },
  );

  it.each([
    ['the table', { ...first, table: 'PlantStore-test-PlantsTable4EFC45DE-9Z8Y7X6W5V4U3' }],
    ['the user pool', { ...first, pool: 'eu-west-1_N3wPo0l42' }],
    ['the app client', { ...first, client: '0th3rclient0id0abcdefghijk' }],
  ])(
    'publishes a new version of each function when %s is replaced, though the template stays the same',
    (_what, replaced) => {
      for (const operation of operations) {
        const [, fn] = functionOf(template, operation);
        // The function's template names these only by reference, so the version's logical id (a
        // hash of that template) cannot change with them.
        expect(JSON.stringify(fn.Properties.Environment)).not.toContain(first.pool);

        const before = versionDescription(template, operation, deployedWith(first));
        const after = versionDescription(template, operation, deployedWith(replaced));

        // CloudFormation replaces an AWS::Lambda::Version whose Description changes: a new version.
        expect(after).not.toBe(before);
        expect(versionDescription(template, operation, deployedWith(first))).toBe(before);
      }
    },
  );

  it.each(operations)(
    "describes $name's version with the values behind each reference, once each",
    (operation) => {
      const description = versionDescription(template, operation, deployedWith(first));

      expect(description.split(' ').sort()).toEqual(
        [
          first.client,
          `https://cognito-idp.eu-west-1.amazonaws.com/${first.pool}`,
          'plants',
          first.table,
        ].sort(),
      );
    },
  );

  it('stays within the 256 characters of a version description, for the longest names', () => {
    const stage = 'a-twenty-char-stage1';
    const { template: longest } = synthStack({ stage });
    const region = 'ap-southeast-5';

    for (const operation of operations) {
      const description = versionDescription(
        longest,
        operation,
        deployedWith(
          {
            // CloudFormation names a table <stack>-<logical id>-<13 random characters>.
            table: `PlantStore-${stage}-PlantsTable4EFC45DE-ABCDEFGHIJKLM`,
            pool: `${region}_AbCdEfGhI`,
            client: 'abcdefghijklmnopqrstuvwxyz',
          },
          region,
        ),
      );

      expect(description.length).toBeLessThanOrEqual(256);
    }
  });
});

describe('OperationFunction with an external issuer', () => {
  let external: Template;
  beforeAll(() => {
    external = synthStack({
      externalIssuer: {
        issuer: 'https://example.eu.auth0.com/',
        audiences: ['https://plants.example.com'],
      },
    }).template;
  });

  it.each(operations)(
    'points $name at that issuer, its JWKS, audience and the API’s own name of its scope',
    (operation) => {
      const [, fn] = functionOf(external, operation);

      expect(fn.Properties.Environment).toMatchObject({
        Variables: {
          AUTH_ISSUER: 'https://example.eu.auth0.com/',
          AUTH_JWKS_URL: 'https://example.eu.auth0.com/.well-known/jwks.json',
          AUTH_AUDIENCE: 'https://plants.example.com',
          AUTH_SCOPE: operation.scope,
        },
      });
    },
  );

  it("takes the issuer's own name of a scope where it has one", () => {
    const { template: renamed } = synthStack({
      externalIssuer: {
        issuer: 'https://example.eu.auth0.com/',
        audiences: ['https://plants.example.com'],
        scopes: { 'plants/read': 'read:plants' },
      },
    });

    for (const operation of operations) {
      expect(scopeOf(renamed, operation), operation.name).toBe(
        operation.scope === 'plants/read' ? 'read:plants' : operation.scope,
      );
    }
  });

  it('describes each version with the table only: the issuer is in the template', () => {
    for (const operation of operations) {
      expect(versionDescription(external, operation, deployedWith(first))).toBe(first.table);
    }
  });
});

describe('OperationFunction log group', () => {
  it.each(operations)(
    "keeps $name's log group 30 days, after the stack is deleted, but not after a failed first deploy",
    (operation) => {
      const [, fn] = functionOf(template, operation);
      const { LogGroup } = fn.Properties.LoggingConfig as { LogGroup: { Ref: string } };

      expect(template.toJSON().Resources[LogGroup.Ref]).toMatchObject({
        Properties: { RetentionInDays: 30 },
        DeletionPolicy: 'RetainExceptOnCreate',
        UpdateReplacePolicy: 'Retain',
      });
    },
  );
});
