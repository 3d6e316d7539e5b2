import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { evaluateCfn } from '../../bench/support/cloudformation.ts';
import { operations } from '../../functions/operations.ts';
import {
  onlyResource,
  operationResource,
  type PolicyStatement,
  type TemplateResource as Resource,
  roleOf,
  roleStatements,
  type Synthesized,
  synthStack,
} from '../support/synth.ts';

let synthesized: Synthesized;
let template: Template;

beforeAll(() => {
  synthesized = synthStack();
  template = synthesized.template;
});

const logicalId = (type: string): string => onlyResource(template, type)[0];

/** The log group the API stage writes its access logs to. */
const accessLogGroupId = (): string => {
  const [, stage] = onlyResource(template, 'AWS::ApiGatewayV2::Stage');
  const settings = stage.Properties.AccessLogSettings as {
    DestinationArn: { 'Fn::GetAtt': [string, string] };
  };
  return settings.DestinationArn['Fn::GetAtt'][0];
};

/** A physical name as CloudFormation evaluates it in the stack `stackName` with this stack GUID. */
const evaluateIn = (value: unknown, stackName: string, guid: string): string =>
  evaluateCfn({ Resources: {} }, value, {
    region: 'eu-west-1',
    accountId: '123456789012',
    resources: {},
    stackName,
    stackId: `arn:aws:cloudformation:eu-west-1:123456789012:stack/${stackName}/${guid}`,
  }) as string;
const firstGuid = '51af3dc0-da77-11e4-872e-1234567db123';

describe('PlantStoreStack table', () => {
  it('is keyed by id (Number), on demand, with point-in-time recovery and AWS-managed encryption', () => {
    template.resourceCountIs('AWS::DynamoDB::Table', 1);
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
      AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'N' }],
      BillingMode: 'PAY_PER_REQUEST',
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      DeletionProtectionEnabled: true,
      SSESpecification: { SSEEnabled: true, KMSMasterKeyId: Match.absent() },
      TableName: Match.absent(),
    });
  });

  // Not RetainExceptOnCreate: after a failed first deploy CloudFormation would delete the table in
  // the rollback, which deletion protection refuses, and the rollback would fail.
  it('is retained when the stack is deleted or the table replaced, even by a failed first deploy', () => {
    template.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
    });
  });

  it('keeps its logical id, so a refactor cannot swap in a new, empty table', () => {
    expect(logicalId('AWS::DynamoDB::Table')).toBe('PlantsTable4EFC45DE');
  });
});

describe('PlantStoreStack IAM', () => {
  /** The statements of every policy in the stack. */
  const statements = (): PolicyStatement[] =>
    Object.values(template.findResources('AWS::IAM::Policy')).flatMap(
      (policy) =>
        ((policy as Resource).Properties.PolicyDocument as { Statement: PolicyStatement[] })
          .Statement,
    );

  it("grants DynamoDB only to the operations' functions, each its own calls on the table ARN, and their hooks", () => {
    const dynamodb = statements().filter((statement) =>
      [statement.Action].flat().some((action) => action.startsWith('dynamodb:')),
    );
    const table = { 'Fn::GetAtt': [logicalId('AWS::DynamoDB::Table'), 'Arn'] };

    // Each hook's fixture calls are its own test's (pre-traffic-check.test.ts).
    expect(dynamodb).toHaveLength(operations.length * 2);
    for (const operation of operations) {
      const [, fn] = operationResource(template, 'AWS::Lambda::Function', operation, 'Function');
      const granted = roleStatements(template, roleOf(fn)).filter((statement) =>
        JSON.stringify(statement.Action).includes('dynamodb:'),
      );
      expect(granted).toEqual([
        {
          Effect: 'Allow',
          Action:
            operation.dynamodbActions.length === 1
              ? operation.dynamodbActions[0]
              : [...operation.dynamodbActions].sort(),
          Resource: table,
        },
      ]);
    }
  });

  it('has no wildcard action, and "*" only for the X-Ray calls and CodeDeploy invoking each hook', () => {
    const all = statements();
    expect(all.length).toBeGreaterThan(0);
    for (const statement of all) {
      expect(statement.Effect).toBe('Allow');
      for (const action of [statement.Action].flat()) expect(action).not.toContain('*');
    }
    const onEverything = all.filter((statement) =>
      JSON.stringify(statement.Resource).includes('*'),
    );
    const xray = {
      Effect: 'Allow',
      Action: ['xray:PutTelemetryRecords', 'xray:PutTraceSegments'],
      Resource: '*',
    };
    // LambdaDeploymentGroup's own grant: the hook function and its versions (it has none).
    const invokeHook = (hookId: string) => ({
      Effect: 'Allow',
      Action: 'lambda:InvokeFunction',
      Resource: [
        { 'Fn::GetAtt': [hookId, 'Arn'] },
        { 'Fn::Join': ['', [{ 'Fn::GetAtt': [hookId, 'Arn'] }, ':*']] },
      ],
    });
    expect(onEverything).toHaveLength(2 * operations.length);
    for (const operation of operations) {
      const [hookId] = operationResource(
        template,
        'AWS::Lambda::Function',
        operation,
        'PreTrafficCheckFunction',
      );
      expect(onEverything).toContainEqual(invokeHook(hookId));
    }
    expect(
      onEverything.filter((statement) => statement.Action !== 'lambda:InvokeFunction'),
    ).toEqual(operations.map(() => xray));
  });
});

describe('PlantStoreStack with an external issuer', () => {
  let external: Template;
  beforeAll(() => {
    external = synthStack({
      externalIssuer: {
        issuer: 'https://example.eu.auth0.com/',
        audiences: ['https://plants.example.com'],
      },
    }).template;
  });

  it('creates no Cognito resources', () => {
    for (const type of [
      'AWS::Cognito::UserPool',
      'AWS::Cognito::UserPoolClient',
      'AWS::Cognito::UserPoolDomain',
      'AWS::Cognito::UserPoolResourceServer',
    ]) {
      external.resourceCountIs(type, 0);
    }
  });

  it('outputs the issuer instead of the token URL and client', () => {
    external.hasOutput('AuthIssuer', { Value: 'https://example.eu.auth0.com/' });
    expect(Object.keys(external.findOutputs('*'))).not.toEqual(
      expect.arrayContaining(['TokenUrl']),
    );
    expect(external.findOutputs('ClientId')).toEqual({});
  });
});

describe('PlantStoreStack outputs', () => {
  it('gives the API URL, token URL, client id and the command that reads the secret', () => {
    const userPool = logicalId('AWS::Cognito::UserPool');
    const client = logicalId('AWS::Cognito::UserPoolClient');
    template.hasOutput('ApiUrl', {
      Value: {
        'Fn::Join': [
          '',
          Match.arrayWith(['https://', { Ref: logicalId('AWS::ApiGatewayV2::Api') }, '/']),
        ],
      },
    });
    template.hasOutput('TokenUrl', {
      Value: {
        'Fn::Join': [
          '',
          [
            'https://',
            { Ref: logicalId('AWS::Cognito::UserPoolDomain') },
            '.auth.',
            { Ref: 'AWS::Region' },
            '.amazoncognito.com/oauth2/token',
          ],
        ],
      },
    });
    template.hasOutput('ClientId', { Value: { Ref: client } });
    template.hasOutput('UserPoolId', { Value: { Ref: userPool } });
    template.hasOutput('ClientSecretCommand', {
      Value: {
        'Fn::Join': [
          '',
          [
            'aws cognito-idp describe-user-pool-client --region ',
            { Ref: 'AWS::Region' },
            ' --user-pool-id ',
            { Ref: userPool },
            ' --client-id ',
            { Ref: client },
            ' --query UserPoolClient.ClientSecret --output text',
          ],
        ],
      },
    });
  });
});

describe('PlantStoreStack and the CI role', () => {
  const ciRoleArn = 'arn:aws:iam::123456789012:role/PlantStore-ci-GithubDeployRole-AbC123';

  it("with ciRoleArn, lets that role read this stage's machine client, in this pool only", () => {
    const { template: withCi } = synthStack({ ciRoleArn });
    const userPool = Object.keys(withCi.findResources('AWS::Cognito::UserPool'))[0];
    const forCi = Object.values(withCi.findResources('AWS::IAM::Policy')).filter(
      (policy) =>
        JSON.stringify(policy.Properties.Roles) === '["PlantStore-ci-GithubDeployRole-AbC123"]',
    );
    expect(forCi.map((policy) => policy.Properties.PolicyDocument.Statement)).toEqual([
      [
        {
          Effect: 'Allow',
          Action: 'cognito-idp:DescribeUserPoolClient',
          Resource: { 'Fn::GetAtt': [userPool, 'Arn'] },
        },
      ],
    ]);
  });

  it('grants no role anything without ciRoleArn, or with an external issuer', () => {
    const { template: external } = synthStack({
      ciRoleArn,
      externalIssuer: { issuer: 'https://issuer.example.com', audiences: ['plants'] },
    });
    for (const each of [template, external]) {
      const roles = Object.values(each.findResources('AWS::IAM::Policy')).flatMap(
        (policy) => policy.Properties.Roles as unknown[],
      );
      for (const role of roles) expect(role).toEqual({ Ref: expect.any(String) });
    }
  });
});

describe('PlantStoreStack environments', () => {
  it('is environment-agnostic: no account or region is baked in', () => {
    expect(synthesized.stack.environment).toBe('aws://unknown-account/unknown-region');
  });

  it('sets no physical names, so two stages can share an account', () => {
    const named = [
      ['AWS::DynamoDB::Table', 'TableName'],
      ['AWS::Lambda::Function', 'FunctionName'],
      ['AWS::IAM::Role', 'RoleName'],
      ['AWS::Logs::LogGroup', 'LogGroupName'],
      ['AWS::Cognito::UserPool', 'UserPoolName'],
      ['AWS::CloudWatch::Alarm', 'AlarmName'],
    ] as const;
    // The exceptions: the access-log group, named for log delivery and per stack instance, and
    // each operation's two rollback alarms, named for the stack, the operation and the version
    // they judge.
    const rollbackAlarms = operations.flatMap((operation) =>
      ['DeployedVersionErrors', 'DeployedVersionFailureRate'].map(
        (name) =>
          operationResource(template, 'AWS::CloudWatch::Alarm', operation, name, 'Alarms')[0],
      ),
    );
    const exceptions = [accessLogGroupId(), ...rollbackAlarms];
    for (const [type, property] of named) {
      for (const [id, resource] of Object.entries(template.findResources(type))) {
        if (exceptions.includes(id)) continue;
        expect((resource as Resource).Properties[property], `${type}.${property}`).toBeUndefined();
      }
    }
    // Named with the stack's name: the stages' alarms never clash (gradual-deployment.test.ts).
    for (const id of rollbackAlarms) {
      const alarm = template.findResources('AWS::CloudWatch::Alarm')[id] as Resource;
      expect(JSON.stringify(alarm.Properties.AlarmName)).toContain('"PlantStore-test-');
    }
  });

  it('gives a prod stage its own Cognito domain prefix', () => {
    const { template: prod } = synthStack({ stage: 'prod' });
    const domain = Object.values(prod.findResources('AWS::Cognito::UserPoolDomain'))[0]?.Properties
      .Domain as unknown;
    expect(evaluateIn(domain, 'PlantStore-prod', firstGuid)).toBe(
      'plants-prod-51af3dc0da7711e4872e1234567db123',
    );
  });
});
