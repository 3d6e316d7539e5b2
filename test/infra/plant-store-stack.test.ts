import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { build } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import { createPlantOutcomes } from '../../functions/create-plant/outcomes.ts';
import { embeddedMetrics, metricsNamespace } from '../../functions/http/request-metrics.ts';
import { bundleFileName, esbuildBuildOptions, nodeOptions } from '../../infra/bundling/bundling.ts';
import { accessLogFields } from '../../infra/constructs/plants-http-api.ts';
import { StageConfigError } from '../../infra/stage-config.ts';
import { evaluateCfn } from '../support/cloudformation.ts';
import {
  onlyResource,
  type TemplateResource as Resource,
  resourceAt,
  type Synthesized,
  synthStack,
} from '../support/synth.ts';

/** One synth with real esbuild bundling for the whole file: it is the slow part. */
let synthesized: Synthesized;
let template: Template;

beforeAll(() => {
  synthesized = synthStack();
  template = synthesized.template;
});

/** Every metric name the handler's log line can carry, as the code that writes the line names them. */
function handlerMetricNames(): string[] {
  const names = Object.values(createPlantOutcomes).flatMap((counter) => {
    const line = embeddedMetrics({ counter, service: 'any', storeLatencyMs: 1 }, 0) as {
      _aws: { CloudWatchMetrics: { Metrics: { Name: string }[] }[] };
    };
    return line._aws.CloudWatchMetrics.flatMap(({ Metrics }) => Metrics.map(({ Name }) => Name));
  });
  return [...new Set(names)];
}

const logicalId = (type: string): string => onlyResource(template, type)[0];
/** The create-plant function; the stack's other function is the pre-traffic check. */
const createPlantFunction = () =>
  resourceAt(template, 'AWS::Lambda::Function', 'CreatePlantFunction');

/** The log group the API stage writes its access logs to. */
const accessLogGroupId = (): string => {
  const [, stage] = onlyResource(template, 'AWS::ApiGatewayV2::Stage');
  const settings = stage.Properties.AccessLogSettings as {
    DestinationArn: { 'Fn::GetAtt': [string, string] };
  };
  return settings.DestinationArn['Fn::GetAtt'][0];
};

/** Stack ids as CloudFormation gives them: the same stack name, deployed twice. */
const stackIdOf = (stackName: string, guid: string) =>
  `arn:aws:cloudformation:eu-west-1:123456789012:stack/${stackName}/${guid}`;
const firstGuid = '51af3dc0-da77-11e4-872e-1234567db123';
const secondGuid = '9b4c0e10-3f2a-11f0-9a1b-0a1b2c3d4e5f';

/** A physical name as CloudFormation evaluates it in the stack `stackName` with this GUID. */
const evaluateIn = (value: unknown, stackName: string, guid: string): string =>
  evaluateCfn({ Resources: {} }, value, {
    region: 'eu-west-1',
    accountId: '123456789012',
    resources: {},
    stackName,
    stackId: stackIdOf(stackName, guid),
  }) as string;

describe('PlantStoreStack HTTP API', () => {
  it("routes POST /plants to the function's live alias with a payload 2.0 proxy integration", () => {
    template.resourceCountIs('AWS::ApiGatewayV2::Route', 1);
    template.hasResourceProperties('AWS::ApiGatewayV2::Route', {
      RouteKey: 'POST /plants',
      Target: {
        'Fn::Join': ['', ['integrations/', { Ref: logicalId('AWS::ApiGatewayV2::Integration') }]],
      },
    });
    template.hasResourceProperties('AWS::ApiGatewayV2::Integration', {
      IntegrationType: 'AWS_PROXY',
      PayloadFormatVersion: '2.0',
      IntegrationUri: { Ref: logicalId('AWS::Lambda::Alias') },
    });
  });

  it('lets API Gateway invoke the live alias for that route only', () => {
    template.resourceCountIs('AWS::Lambda::Permission', 1);
    template.hasResourceProperties('AWS::Lambda::Permission', {
      Action: 'lambda:InvokeFunction',
      FunctionName: { Ref: logicalId('AWS::Lambda::Alias') },
      Principal: 'apigateway.amazonaws.com',
      SourceArn: {
        'Fn::Join': ['', Match.arrayWith([Match.stringLikeRegexp('/\\*/\\*/plants$')])],
      },
    });
  });

  it('names the API after the stack, so each stage is told apart in the console', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Api', { Name: 'PlantStore-test' });
    const { template: prod } = synthStack({ bundle: false, stage: 'prod' });
    prod.hasResourceProperties('AWS::ApiGatewayV2::Api', { Name: 'PlantStore-prod' });
  });

  it('deploys one auto-deployed $default stage throttled at 100 rps with bursts of 200', () => {
    template.resourceCountIs('AWS::ApiGatewayV2::Stage', 1);
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingRateLimit: 100, ThrottlingBurstLimit: 200 },
    });
  });

  it('writes one JSON access log line per request to a log group with retention', () => {
    const [, stage] = onlyResource(template, 'AWS::ApiGatewayV2::Stage');
    const settings = stage.Properties.AccessLogSettings as {
      Format: string;
      DestinationArn: unknown;
    };
    expect(JSON.parse(settings.Format)).toEqual(accessLogFields);
    expect(Object.keys(JSON.parse(settings.Format))).toEqual(
      expect.arrayContaining([
        'requestId',
        'ip',
        'requestTime',
        'httpMethod',
        'routeKey',
        'status',
        'protocol',
        'responseLength',
        'integrationError',
        'integrationLatency',
      ]),
    );
    const {
      'Fn::GetAtt': [logGroup],
    } = settings.DestinationArn as { 'Fn::GetAtt': [string] };
    expect(template.findResources('AWS::Logs::LogGroup')[logGroup]?.Properties).toMatchObject({
      RetentionInDays: 30,
    });
  });

  it('logs to a retained /aws/vendedlogs/ group whose name is new for every stack instance', () => {
    const group = template.findResources('AWS::Logs::LogGroup')[accessLogGroupId()] as Resource;
    // Kept after `cdk destroy` and on replacement; a failed first deploy leaves none behind.
    expect(group.DeletionPolicy).toBe('RetainExceptOnCreate');
    expect(group.UpdateReplacePolicy).toBe('Retain');
    const name = group.Properties.LogGroupName;

    const deployed = evaluateIn(name, 'PlantStore-test', firstGuid);
    const redeployed = evaluateIn(name, 'PlantStore-test', secondGuid);

    expect(deployed).toBe(
      '/aws/vendedlogs/PlantStore-test/http-api-access-logs/51af3dc0da7711e4872e1234567db123',
    );
    expect(redeployed).not.toBe(deployed);
    for (const each of [deployed, redeployed]) expect(each).toMatch(/^[\w/.#-]{1,512}$/);
  });

  it('takes throttling limits from props', () => {
    const { template: custom } = synthStack({
      bundle: false,
      throttlingRateLimit: 5,
      throttlingBurstLimit: 10,
    });
    custom.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      DefaultRouteSettings: { ThrottlingRateLimit: 5, ThrottlingBurstLimit: 10 },
    });
  });
});

describe('PlantStoreStack function', () => {
  it('runs the bundled handler on nodejs24.x, arm64, with JSON logs and active tracing', () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      Runtime: 'nodejs24.x',
      Architectures: ['arm64'],
      Handler: 'index.handler',
      MemorySize: 1024,
      Timeout: 10,
      LoggingConfig: Match.objectLike({
        LogFormat: 'JSON',
        LogGroup: { Ref: Match.anyValue() },
      }),
      TracingConfig: { Mode: 'Active' },
    });
  });

  it('logs to its own log group, kept for 30 days', () => {
    const [, fn] = createPlantFunction();
    const { LogGroup } = fn.Properties.LoggingConfig as { LogGroup: { Ref: string } };
    expect(template.findResources('AWS::Logs::LogGroup')[LogGroup.Ref]?.Properties).toMatchObject({
      RetentionInDays: 30,
    });
  });

  it('gets the table, the Cognito issuer, its JWKS, the client as audience, and the scope', () => {
    const userPool = logicalId('AWS::Cognito::UserPool');
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
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
              [{ Ref: logicalId('AWS::Cognito::UserPoolResourceServer') }, '/write'],
            ],
          },
          NODE_OPTIONS: nodeOptions,
        },
      },
    });
  });

  it('ships the exact bundle the shared esbuild options build: ESM, minified, source-mapped', async () => {
    const [, fn] = createPlantFunction();
    const { S3Key } = fn.Properties.Code as { S3Key: string };
    const assetDir = path.join(
      synthesized.app.synth().directory,
      `asset.${S3Key.replace(/\.zip$/, '')}`,
    );
    const shipped = readFileSync(path.join(assetDir, bundleFileName), 'utf8');
    expect(existsSync(path.join(assetDir, `${bundleFileName}.map`))).toBe(true);
    expect(shipped.trimEnd().endsWith(`//# sourceMappingURL=${bundleFileName}.map`)).toBe(true);

    const outdir = await mkdtemp(path.join(tmpdir(), 'plant-bundle-'));
    try {
      await build({ ...esbuildBuildOptions, outdir, logLevel: 'silent' });
      expect(await readFile(path.join(outdir, bundleFileName), 'utf8')).toBe(shipped);
    } finally {
      await rm(outdir, { recursive: true, force: true });
    }
  });
});

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
  /** The statements of every policy, or of the policies attached to the role `roleId`. */
  const statements = (
    roleId?: string,
  ): { Action: string | string[]; Resource: unknown; Effect: string }[] =>
    Object.values(template.findResources('AWS::IAM::Policy'))
      .filter(
        (policy) =>
          roleId === undefined ||
          JSON.stringify((policy as Resource).Properties.Roles) ===
            JSON.stringify([{ Ref: roleId }]),
      )
      .flatMap(
        (policy) =>
          (policy as Resource).Properties.PolicyDocument as never as {
            Statement: { Action: string | string[]; Resource: unknown; Effect: string }[];
          },
      )
      .flatMap((document) => document.Statement);

  it('grants exactly PutItem and GetItem on the plants table ARN', () => {
    const dynamodb = statements().filter((statement) =>
      [statement.Action].flat().some((action) => action.startsWith('dynamodb:')),
    );
    expect(dynamodb).toEqual([
      {
        Effect: 'Allow',
        Action: ['dynamodb:GetItem', 'dynamodb:PutItem'],
        Resource: { 'Fn::GetAtt': [logicalId('AWS::DynamoDB::Table'), 'Arn'] },
      },
    ]);
  });

  it('has no wildcard action, and "*" only for the X-Ray calls and CodeDeploy invoking the hook', () => {
    const all = statements();
    expect(all.length).toBeGreaterThan(0);
    for (const statement of all) {
      expect(statement.Effect).toBe('Allow');
      for (const action of [statement.Action].flat()) expect(action).not.toContain('*');
    }
    const onEverything = all.filter((statement) =>
      JSON.stringify(statement.Resource).includes('*'),
    );
    const [hookId] = resourceAt(template, 'AWS::Lambda::Function', 'PreTrafficCheckFunction');
    expect(onEverything).toEqual([
      {
        Effect: 'Allow',
        Action: ['xray:PutTelemetryRecords', 'xray:PutTraceSegments'],
        Resource: '*',
      },
      // LambdaDeploymentGroup's own grant: the hook function and its versions (it has none).
      {
        Effect: 'Allow',
        Action: 'lambda:InvokeFunction',
        Resource: [
          { 'Fn::GetAtt': [hookId, 'Arn'] },
          { 'Fn::Join': ['', [{ 'Fn::GetAtt': [hookId, 'Arn'] }, ':*']] },
        ],
      },
    ]);
  });

  it('writes logs only to the function log group, with no managed policy on the role', () => {
    const [, fn] = createPlantFunction();
    const { LogGroup } = fn.Properties.LoggingConfig as { LogGroup: { Ref: string } };
    const roleId = (fn.Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
    expect(
      statements(roleId).filter((s) => [s.Action].flat().some((a) => a.startsWith('logs:'))),
    ).toEqual([
      {
        Effect: 'Allow',
        Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        Resource: { 'Fn::GetAtt': [LogGroup.Ref, 'Arn'] },
      },
    ]);
    const role = (template.findResources('AWS::IAM::Role')[roleId] as Resource).Properties;
    expect(role).toMatchObject({
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
    expect(role).not.toHaveProperty('ManagedPolicyArns');
    expect(role).not.toHaveProperty('RoleName');
  });
});

describe('PlantStoreStack Cognito machine auth', () => {
  it('defines the resource server `plants` with the scope `write`', () => {
    template.hasResourceProperties('AWS::Cognito::UserPoolResourceServer', {
      Identifier: 'plants',
      Scopes: [{ ScopeName: 'write', ScopeDescription: Match.anyValue() }],
      UserPoolId: { Ref: logicalId('AWS::Cognito::UserPool') },
    });
  });

  it('has one client with a secret, only the client-credentials grant and plants/write', () => {
    template.resourceCountIs('AWS::Cognito::UserPoolClient', 1);
    template.hasResourceProperties('AWS::Cognito::UserPoolClient', {
      GenerateSecret: true,
      AllowedOAuthFlows: ['client_credentials'],
      AllowedOAuthFlowsUserPoolClient: true,
      AllowedOAuthScopes: [
        {
          'Fn::Join': ['', [{ Ref: logicalId('AWS::Cognito::UserPoolResourceServer') }, '/write']],
        },
      ],
    });
  });

  it('allows the client no sign-in flow, only refresh (unset, Cognito would allow SRP and custom)', () => {
    template.hasResourceProperties('AWS::Cognito::UserPoolClient', {
      ExplicitAuthFlows: ['ALLOW_REFRESH_TOKEN_AUTH'],
    });
  });

  it('pins the ORIGINAL issuer format, the `iss` that AUTH_ISSUER (the ProviderURL) expects', () => {
    template.hasResourceProperties('AWS::Cognito::UserPool', {
      IssuerConfiguration: { Type: 'ORIGINAL' },
    });
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: Match.objectLike({
          AUTH_ISSUER: { 'Fn::GetAtt': [logicalId('AWS::Cognito::UserPool'), 'ProviderURL'] },
        }),
      },
    });
  });

  it('lets no one sign up', () => {
    template.hasResourceProperties('AWS::Cognito::UserPool', {
      AdminCreateUserConfig: { AllowAdminCreateUserOnly: true },
      UserPoolName: Match.absent(),
    });
  });

  it('serves the token endpoint at plants-<stage>-<stack instance id>, without the account id', () => {
    const [, domain] = onlyResource(template, 'AWS::Cognito::UserPoolDomain');
    expect(domain.Properties.UserPoolId).toEqual({ Ref: logicalId('AWS::Cognito::UserPool') });

    expect(JSON.stringify(domain.Properties.Domain)).not.toContain('AWS::AccountId');
    expect(evaluateIn(domain.Properties.Domain, 'PlantStore-test', firstGuid)).toBe(
      'plants-test-51af3dc0da7711e4872e1234567db123',
    );
  });

  it('gives the longest stage a valid domain prefix, a new one for every stack instance', () => {
    const stage = 'a-twenty-char-stage1';
    expect(stage).toHaveLength(20);
    const { template: longest } = synthStack({ bundle: false, stage });
    const domain = Object.values(longest.findResources('AWS::Cognito::UserPoolDomain'))[0]
      ?.Properties.Domain as unknown;

    const prefixes = [firstGuid, secondGuid].map((guid) =>
      evaluateIn(domain, `PlantStore-${stage}`, guid),
    );

    // Cognito's rule for a domain prefix, reserved words included.
    for (const prefix of prefixes) {
      expect(prefix).toMatch(/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/);
      expect(prefix).not.toMatch(/aws|amazon|cognito/);
    }
    expect(prefixes[0]).not.toBe(prefixes[1]);
  });

  it('takes the domain prefix from props when given', () => {
    const { template: custom } = synthStack({ bundle: false, authDomainPrefix: 'acme-plants' });
    custom.hasResourceProperties('AWS::Cognito::UserPoolDomain', { Domain: 'acme-plants' });
  });

  it.each(['laws', 'amazon', 'cognito-dev'])(
    'refuses at synth the stage %s, which Cognito would refuse in the default prefix at deploy',
    (stage) => {
      const synth = () => synthStack({ bundle: false, stage });
      expect(synth).toThrow(StageConfigError);
      expect(synth).toThrow(/contains "(aws|amazon|cognito)".*-c authDomainPrefix=/);
    },
  );

  it('deploys the stage laws with an explicit prefix, or with an external issuer', () => {
    const { template: prefixed } = synthStack({
      bundle: false,
      stage: 'laws',
      authDomainPrefix: 'plants-legal',
    });
    prefixed.hasResourceProperties('AWS::Cognito::UserPoolDomain', { Domain: 'plants-legal' });

    const { template: external } = synthStack({
      bundle: false,
      stage: 'laws',
      externalIssuer: { issuer: 'https://issuer.example.com', audiences: ['plants'] },
    });
    external.resourceCountIs('AWS::Cognito::UserPoolDomain', 0);
  });
});

describe('PlantStoreStack with an external issuer', () => {
  let external: Template;
  beforeAll(() => {
    external = synthStack({
      bundle: false,
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

  it('points the function at that issuer, its JWKS, audience and the default scope', () => {
    external.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: Match.objectLike({
          AUTH_ISSUER: 'https://example.eu.auth0.com/',
          AUTH_JWKS_URL: 'https://example.eu.auth0.com/.well-known/jwks.json',
          AUTH_AUDIENCE: 'https://plants.example.com',
          AUTH_SCOPE: 'plants/write',
        }),
      },
    });
  });

  it('outputs the issuer instead of the token URL and client', () => {
    external.hasOutput('AuthIssuer', { Value: 'https://example.eu.auth0.com/' });
    expect(Object.keys(external.findOutputs('*'))).not.toEqual(
      expect.arrayContaining(['TokenUrl']),
    );
    expect(external.findOutputs('ClientId')).toEqual({});
  });
});

describe('PlantStoreStack alarms', () => {
  const alarms = () =>
    Object.values(template.findResources('AWS::CloudWatch::Alarm')) as Resource[];

  it('has seven alarms (five that page, two that roll a deploy back), none firing on missing data', () => {
    expect(alarms()).toHaveLength(7);
    for (const alarm of alarms()) {
      expect(alarm.Properties.TreatMissingData).toBe('notBreaching');
    }
  });

  it.each([
    [
      'function errors',
      { Namespace: 'AWS/Lambda', MetricName: 'Errors', Statistic: 'Sum', Threshold: 1 },
    ],
    [
      'function throttles',
      { Namespace: 'AWS/Lambda', MetricName: 'Throttles', Statistic: 'Sum', Threshold: 1 },
    ],
    [
      'API p99 latency',
      {
        Namespace: 'AWS/ApiGateway',
        MetricName: 'Latency',
        ExtendedStatistic: 'p99',
        Threshold: 2000,
      },
    ],
  ])('alarms on %s', (_name, properties) => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', properties);
  });

  it('alarms on the API 5xx rate, as a percentage of requests', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Threshold: 5,
      Metrics: Match.arrayWith([
        Match.objectLike({ Expression: 'IF(requests > 0, 100 * errors / requests, 0)' }),
        Match.objectLike({
          Id: 'errors',
          MetricStat: Match.objectLike({
            Metric: Match.objectLike({ Namespace: 'AWS/ApiGateway', MetricName: '5xx' }),
          }),
        }),
        Match.objectLike({
          Id: 'requests',
          MetricStat: Match.objectLike({
            Metric: Match.objectLike({ Namespace: 'AWS/ApiGateway', MetricName: 'Count' }),
          }),
        }),
      ]),
    });
  });

  it('alarms on DynamoDB throttling of PutItem and GetItem on the table', () => {
    const table = logicalId('AWS::DynamoDB::Table');
    const throttled = (operation: string) =>
      Match.objectLike({
        MetricStat: Match.objectLike({
          Metric: {
            Namespace: 'AWS/DynamoDB',
            MetricName: 'ThrottledRequests',
            Dimensions: Match.arrayWith([
              { Name: 'Operation', Value: operation },
              { Name: 'TableName', Value: { Ref: table } },
            ]),
          },
        }),
      });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Threshold: 1,
      Metrics: Match.arrayWith([throttled('PutItem'), throttled('GetItem')]),
    });
  });

  it('fills each DynamoDB operation with 0, so a period without GetItem still has a value', () => {
    const [throttling] = alarms().filter((alarm) =>
      JSON.stringify(alarm.Properties.Metrics ?? []).includes('ThrottledRequests'),
    );
    const metrics = throttling?.Properties.Metrics as {
      Id: string;
      Expression?: string;
      MetricStat?: unknown;
    }[];
    const [expression, ...more] = metrics.filter((metric) => metric.Expression !== undefined);
    const series = metrics.filter((metric) => metric.MetricStat !== undefined);
    expect(more).toEqual([]);
    expect(series).toHaveLength(2);

    // Every series the sum reads is FILLed, and no series is read bare.
    for (const { Id } of series) {
      expect(expression?.Expression).toContain(`FILL(${Id}, 0)`);
      expect(expression?.Expression?.replaceAll(`FILL(${Id}, 0)`, '')).not.toMatch(
        new RegExp(`\\b${Id}\\b`),
      );
    }
  });

  it('notifies no one unless alarmEmail is given', () => {
    template.resourceCountIs('AWS::SNS::Topic', 0);
    for (const alarm of alarms()) expect(alarm.Properties.AlarmActions).toBeUndefined();
  });

  it('with alarmEmail, e-mails ALARM and OK of every alarm through one TLS-only topic', () => {
    const { template: withEmail } = synthStack({
      bundle: false,
      alarmEmail: 'oncall@example.com',
    });
    withEmail.resourceCountIs('AWS::SNS::Topic', 1);
    withEmail.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'oncall@example.com',
    });
    const topic = { Ref: Object.keys(withEmail.findResources('AWS::SNS::Topic'))[0] };
    withEmail.resourceCountIs('AWS::SNS::TopicPolicy', 1);
    withEmail.hasResourceProperties('AWS::SNS::TopicPolicy', {
      Topics: [topic],
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Deny',
            Condition: { Bool: { 'aws:SecureTransport': 'false' } },
          }),
        ]),
      },
    });
    const withActions = Object.values(withEmail.findResources('AWS::CloudWatch::Alarm'));
    expect(withActions).toHaveLength(7);
    for (const alarm of withActions) {
      expect(alarm.Properties).toMatchObject({ AlarmActions: [topic], OKActions: [topic] });
    }
  });

  it("with alarmEmail, lets CloudWatch publish for this account's alarms, which the topic policy would otherwise forbid", () => {
    const { template: withEmail } = synthStack({
      bundle: false,
      alarmEmail: 'oncall@example.com',
    });
    const topic = { Ref: Object.keys(withEmail.findResources('AWS::SNS::Topic'))[0] };
    withEmail.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          {
            Sid: Match.anyValue(),
            Effect: 'Allow',
            Principal: { Service: 'cloudwatch.amazonaws.com' },
            Action: 'sns:Publish',
            Resource: topic,
            Condition: {
              StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
              ArnLike: {
                'aws:SourceArn': {
                  'Fn::Join': [
                    '',
                    [
                      'arn:',
                      { Ref: 'AWS::Partition' },
                      ':cloudwatch:',
                      { Ref: 'AWS::Region' },
                      ':',
                      { Ref: 'AWS::AccountId' },
                      ':alarm:*',
                    ],
                  ],
                },
              },
            },
          },
        ]),
      },
    });
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
    const { template: withCi } = synthStack({ bundle: false, ciRoleArn });
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
      bundle: false,
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
    // the two rollback alarms, named for the stack and the version they judge.
    const exceptions = [
      accessLogGroupId(),
      resourceAt(template, 'AWS::CloudWatch::Alarm', 'AlarmsDeployedVersionErrors')[0],
      resourceAt(template, 'AWS::CloudWatch::Alarm', 'AlarmsDeployedVersionFailureRate')[0],
    ];
    for (const [type, property] of named) {
      for (const [id, resource] of Object.entries(template.findResources(type))) {
        if (exceptions.includes(id)) continue;
        expect((resource as Resource).Properties[property], `${type}.${property}`).toBeUndefined();
      }
    }
    // Named with the stack's name: the stages' alarms never clash (gradual-deployment.test.ts).
    for (const id of exceptions.slice(1)) {
      const alarm = template.findResources('AWS::CloudWatch::Alarm')[id] as Resource;
      expect(JSON.stringify(alarm.Properties.AlarmName)).toContain('"PlantStore-test-');
    }
  });

  it('gives a prod stage its own Cognito domain prefix', () => {
    const { template: prod } = synthStack({ bundle: false, stage: 'prod' });
    const domain = Object.values(prod.findResources('AWS::Cognito::UserPoolDomain'))[0]?.Properties
      .Domain as unknown;
    expect(evaluateIn(domain, 'PlantStore-prod', firstGuid)).toBe(
      'plants-prod-51af3dc0da7711e4872e1234567db123',
    );
  });
});

describe('PlantStoreStack operations dashboard', () => {
  /** The dashboard body with CloudFormation references written as `<ref>`, so it can be searched. */
  const dashboardBody = (): string => {
    const [, dashboard] = onlyResource(template, 'AWS::CloudWatch::Dashboard');
    const flatten = (value: unknown): string => {
      if (typeof value === 'string') return value;
      const join = (value as { 'Fn::Join'?: [string, unknown[]] })['Fn::Join'];
      return join ? join[1].map(flatten).join(join[0]) : '<ref>';
    };
    return flatten(dashboard.Properties.DashboardBody);
  };

  it.each([
    ['the API requests, 4xx and 5xx', ['"Count"', '"4xx"', '"5xx"']],
    ['the API latency p50 and p99', ['"Latency"', '"p50"', '"p99"']],
    ['the function duration, errors and throttles', ['"Duration"', '"Errors"', '"Throttles"']],
    ['the cold starts from the REPORT lines', ['platform.report', 'initDurationMs']],
    [
      'the table capacity and throttles, each operation filled with 0',
      ['ConsumedWriteCapacityUnits', 'ThrottledRequests', 'FILL(putitem, 0) + FILL(getitem, 0)'],
    ],
  ])('shows %s', (_what, needles) => {
    const body = dashboardBody();

    for (const needle of needles) expect(body).toContain(needle);
  });

  it.each(handlerMetricNames())("shows the handler's metric %s", (name) => {
    const body = dashboardBody();

    const graphed = body.includes(`"${metricsNamespace}","${name}"`);
    const searched =
      body.includes(`{${metricsNamespace},`) && body.includes(`MetricName=\\"${name}\\"`);
    expect(graphed || searched).toBe(true);
  });

  it("reads the handler's metrics for this function only, so stages never mix", () => {
    const body = dashboardBody();

    expect(body).toContain(
      `"${metricsNamespace}","${createPlantOutcomes.created}","Service","<ref>"`,
    );
    expect(body).toContain('Service=\\"<ref>\\"');
  });

  it('keeps the platform REPORT lines the cold-start widget reads', () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      LoggingConfig: Match.objectLike({ SystemLogLevel: 'INFO' }),
    });
  });
});
