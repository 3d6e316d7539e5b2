import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { evaluateCfn } from '../../bench/support/cloudformation.ts';
import { operations, routeKey } from '../../functions/operations.ts';
import { accessLogFields } from '../../infra/constructs/plants-http-api.ts';
import {
  onlyResource,
  operationResource,
  type TemplateResource as Resource,
  synthStack,
} from '../support/synth.ts';

let template: Template;

beforeAll(() => {
  template = synthStack().template;
});

const logicalId = (type: string): string => onlyResource(template, type)[0];
const aliasOf = (operation: (typeof operations)[number]) =>
  operationResource(template, 'AWS::Lambda::Alias', operation, 'LiveAlias')[0];

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

describe('PlantsHttpApi routes', () => {
  it(`has exactly one route per operation: ${operations.map(routeKey).join(', ')}`, () => {
    const routes = Object.values(template.findResources('AWS::ApiGatewayV2::Route')).map(
      (route) => route.Properties.RouteKey,
    );

    expect(routes.sort()).toEqual(operations.map(routeKey).sort());
    expect(new Set(routes).size).toBe(operations.length);
  });

  it.each(operations)(
    "routes $method $path to $name's live alias with a payload 2.0 proxy integration",
    (operation) => {
      const integrations = Object.entries(
        template.findResources('AWS::ApiGatewayV2::Integration', {
          Properties: { IntegrationUri: { Ref: aliasOf(operation) } },
        }),
      );
      expect(integrations).toHaveLength(1);
      const [[integrationId, integration]] = integrations as [[string, Resource]];

      expect(integration.Properties).toMatchObject({
        IntegrationType: 'AWS_PROXY',
        PayloadFormatVersion: '2.0',
      });
      template.hasResourceProperties('AWS::ApiGatewayV2::Route', {
        RouteKey: routeKey(operation),
        Target: { 'Fn::Join': ['', ['integrations/', { Ref: integrationId }]] },
      });
    },
  );

  it.each(operations)(
    "lets API Gateway invoke $name's live alias for $method $path only",
    (operation) => {
      const permissions = Object.values(
        template.findResources('AWS::Lambda::Permission', {
          Properties: { FunctionName: { Ref: aliasOf(operation) } },
        }),
      );

      expect(permissions).toHaveLength(1);
      // Any stage and method of this API, on this route's path: `{id}` is written as the route
      // writes it, which is how API Gateway names the route in the invoke's source ARN.
      expect(permissions[0]?.Properties).toEqual({
        Action: 'lambda:InvokeFunction',
        FunctionName: { Ref: aliasOf(operation) },
        Principal: 'apigateway.amazonaws.com',
        SourceArn: {
          'Fn::Join': [
            '',
            [
              'arn:',
              { Ref: 'AWS::Partition' },
              ':execute-api:',
              { Ref: 'AWS::Region' },
              ':',
              { Ref: 'AWS::AccountId' },
              ':',
              { Ref: logicalId('AWS::ApiGatewayV2::Api') },
              `/*/*${operation.path}`,
            ],
          ],
        },
      });
    },
  );

  it('lets no one invoke a function but through its alias', () => {
    template.resourceCountIs('AWS::Lambda::Permission', operations.length);
    for (const operation of operations) {
      template.hasResourceProperties('AWS::Lambda::Permission', {
        FunctionName: { Ref: aliasOf(operation) },
      });
    }
  });

  it("keeps the logical ids of POST /plants's route, integration and permission", () => {
    expect(Object.keys(template.findResources('AWS::ApiGatewayV2::Route'))).toContain(
      'HttpApiPOSTplants1E9341A1',
    );
    expect(Object.keys(template.findResources('AWS::ApiGatewayV2::Integration'))).toContain(
      'HttpApiPOSTplantsCreatePlantC1586360',
    );
    expect(Object.keys(template.findResources('AWS::Lambda::Permission'))).toContain(
      'HttpApiPOSTplantsCreatePlantPermission161EA411',
    );
  });
});

describe('PlantsHttpApi stage', () => {
  it('names the API after the stack, so each stage is told apart in the console', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Api', { Name: 'PlantStore-test' });
    const { template: prod } = synthStack({ stage: 'prod' });
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

  it('takes throttling limits from props', () => {
    const { template: custom } = synthStack({
      throttlingRateLimit: 5,
      throttlingBurstLimit: 10,
    });
    custom.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      DefaultRouteSettings: { ThrottlingRateLimit: 5, ThrottlingBurstLimit: 10 },
    });
  });

  it('writes one JSON access log line per request to a log group with retention', () => {
    const [, stage] = onlyResource(template, 'AWS::ApiGatewayV2::Stage');
    const settings = stage.Properties.AccessLogSettings as { Format: string };
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
    expect(
      template.findResources('AWS::Logs::LogGroup')[accessLogGroupId()]?.Properties,
    ).toMatchObject({ RetentionInDays: 30 });
  });

  it('logs to a retained /aws/vendedlogs/ group whose name is new for every stack instance', () => {
    const group = template.findResources('AWS::Logs::LogGroup')[accessLogGroupId()] as Resource;
    // Kept after `cdk destroy` and on replacement; a failed first deploy leaves none behind.
    expect(group.DeletionPolicy).toBe('RetainExceptOnCreate');
    expect(group.UpdateReplacePolicy).toBe('Retain');
    const name = group.Properties.LogGroupName;

    const deployed = evaluateIn(name, 'PlantStore-test', '51af3dc0-da77-11e4-872e-1234567db123');
    const redeployed = evaluateIn(name, 'PlantStore-test', '9b4c0e10-3f2a-11f0-9a1b-0a1b2c3d4e5f');

    expect(deployed).toBe(
      '/aws/vendedlogs/PlantStore-test/http-api-access-logs/51af3dc0da7711e4872e1234567db123',
    );
    expect(redeployed).not.toBe(deployed);
    for (const each of [deployed, redeployed]) expect(each).toMatch(/^[\w/.#-]{1,512}$/);
  });

  it('outputs the base URL of the stage', () => {
    template.hasOutput('ApiUrl', {
      Value: {
        'Fn::Join': [
          '',
          Match.arrayWith(['https://', { Ref: logicalId('AWS::ApiGatewayV2::Api') }, '/']),
        ],
      },
    });
  });
});
