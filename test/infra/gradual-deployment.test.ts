import { Annotations, Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import type { CfnTemplate } from '../support/cloud-assembly.ts';
import { evaluateCfn } from '../support/cloudformation.ts';
import {
  onlyResource,
  type TemplateResource as Resource,
  resourceAt,
  synthStack,
} from '../support/synth.ts';

let template: Template;

beforeAll(() => {
  // The stage `test`: not `dev`, so it gets the default canary.
  template = synthStack({ bundle: false }).template;
});

const alarmNamed = (from: Template, idPrefix: string): [string, Resource] =>
  resourceAt(from, 'AWS::CloudWatch::Alarm', idPrefix);
const createPlantFunction = (from: Template) =>
  resourceAt(from, 'AWS::Lambda::Function', 'CreatePlantFunction');
const hookFunction = (from: Template) =>
  resourceAt(from, 'AWS::Lambda::Function', 'PreTrafficCheckFunction');

describe('PlantStoreStack live alias', () => {
  it('points the alias live at the version this deploy publishes', () => {
    const [functionId] = createPlantFunction(template);
    const [versionId] = onlyResource(template, 'AWS::Lambda::Version');
    template.hasResourceProperties('AWS::Lambda::Version', { FunctionName: { Ref: functionId } });
    template.hasResourceProperties('AWS::Lambda::Alias', {
      Name: 'live',
      FunctionName: { Ref: functionId },
      FunctionVersion: { 'Fn::GetAtt': [versionId, 'Version'] },
    });
  });

  it('is what the API invokes, not $LATEST', () => {
    const [aliasId] = onlyResource(template, 'AWS::Lambda::Alias');
    template.hasResourceProperties('AWS::ApiGatewayV2::Integration', {
      IntegrationUri: { Ref: aliasId },
    });
    template.hasResourceProperties('AWS::Lambda::Permission', { FunctionName: { Ref: aliasId } });
  });
});

describe('PlantStoreStack gradual deployment', () => {
  it('hands every alias update to the CodeDeploy deployment group, with the pre-traffic check', () => {
    const [groupId] = onlyResource(template, 'AWS::CodeDeploy::DeploymentGroup');
    const [applicationId] = onlyResource(template, 'AWS::CodeDeploy::Application');
    const [hookId] = hookFunction(template);
    template.hasResourceProperties('AWS::CodeDeploy::Application', { ComputePlatform: 'Lambda' });
    const [, alias] = onlyResource(template, 'AWS::Lambda::Alias');
    expect(alias.UpdatePolicy).toEqual({
      CodeDeployLambdaAliasUpdate: {
        ApplicationName: { Ref: applicationId },
        DeploymentGroupName: { Ref: groupId },
        BeforeAllowTrafficHook: { Ref: hookId },
      },
    });
  });

  it('runs the pre-traffic check in dev too, where all traffic moves at once', () => {
    const { template: dev } = synthStack({ bundle: false, stage: 'dev' });
    const [hookId] = hookFunction(dev);
    dev.hasResourceProperties('AWS::CodeDeploy::DeploymentGroup', {
      DeploymentConfigName: 'CodeDeployDefault.LambdaAllAtOnce',
    });
    const [, alias] = onlyResource(dev, 'AWS::Lambda::Alias');
    expect(alias.UpdatePolicy?.CodeDeployLambdaAliasUpdate).toMatchObject({
      BeforeAllowTrafficHook: { Ref: hookId },
    });
  });

  it('lets CodeDeploy invoke the hook, and only the hook', () => {
    const [hookId] = hookFunction(template);
    const [, group] = onlyResource(template, 'AWS::CodeDeploy::DeploymentGroup');
    const roleId = (group.Properties.ServiceRoleArn as { 'Fn::GetAtt': [string] })['Fn::GetAtt'][0];
    const policies = Object.values(template.findResources('AWS::IAM::Policy')).filter((policy) =>
      JSON.stringify(policy.Properties.Roles).includes(roleId),
    );
    expect(policies.flatMap((policy) => policy.Properties.PolicyDocument.Statement)).toEqual([
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

  it.each([
    ['any stage but dev: a 10 % canary for 5 minutes', {}, 'LambdaCanary10Percent5Minutes'],
    ['dev: all at once', { stage: 'dev' }, 'LambdaAllAtOnce'],
    [
      'the deploymentConfig asked for',
      { stage: 'dev', deploymentConfig: 'Linear10PercentEvery1Minute' as const },
      'LambdaLinear10PercentEvery1Minute',
    ],
    [
      'prod turned all at once',
      { stage: 'prod', deploymentConfig: 'AllAtOnce' as const },
      'LambdaAllAtOnce',
    ],
  ])('shifts traffic for %s', (_which, props, configName) => {
    const { template: variant } = synthStack({ bundle: false, ...props });
    variant.hasResourceProperties('AWS::CodeDeploy::DeploymentGroup', {
      DeploymentConfigName: `CodeDeployDefault.${configName}`,
      DeploymentStyle: { DeploymentType: 'BLUE_GREEN', DeploymentOption: 'WITH_TRAFFIC_CONTROL' },
    });
  });

  it('rolls back when the deployment fails, is stopped, or a rollback alarm fires', () => {
    const [, group] = onlyResource(template, 'AWS::CodeDeploy::DeploymentGroup');
    expect(group.Properties.AutoRollbackConfiguration).toEqual({
      Enabled: true,
      Events: ['DEPLOYMENT_FAILURE', 'DEPLOYMENT_STOP_ON_REQUEST', 'DEPLOYMENT_STOP_ON_ALARM'],
    });
  });

  it("watches exactly the deployed version's errors and its 500 rate, and stops on a failed poll", () => {
    const [versionErrorsId] = alarmNamed(template, 'AlarmsDeployedVersionErrors');
    const [failureRateId] = alarmNamed(template, 'AlarmsDeployedVersionFailureRate');
    const [, group] = onlyResource(template, 'AWS::CodeDeploy::DeploymentGroup');
    expect(group.Properties.AlarmConfiguration).toEqual({
      Enabled: true,
      Alarms: [{ Name: { Ref: versionErrorsId } }, { Name: { Ref: failureRateId } }],
    });
  });

  it('moves the alias only after the alarms, the group that lists them and the hook are updated', () => {
    const [versionErrorsId] = alarmNamed(template, 'AlarmsDeployedVersionErrors');
    const [failureRateId] = alarmNamed(template, 'AlarmsDeployedVersionFailureRate');
    const [groupId] = onlyResource(template, 'AWS::CodeDeploy::DeploymentGroup');
    const [hookId] = hookFunction(template);
    const [hookPolicyId] = resourceAt(template, 'AWS::IAM::Policy', 'PreTrafficCheckRole');
    const [, alias] = onlyResource(template, 'AWS::Lambda::Alias');
    expect(alias.DependsOn).toEqual(
      expect.arrayContaining([versionErrorsId, failureRateId, groupId, hookId, hookPolicyId]),
    );
  });

  it('with ignoreAlarmConfiguration, keeps the alarms listed but unread, and warns at synth', () => {
    const { stack, template: emergency } = synthStack({
      bundle: false,
      ignoreAlarmConfiguration: true,
    });
    const [, group] = onlyResource(emergency, 'AWS::CodeDeploy::DeploymentGroup');
    expect(group.Properties.AlarmConfiguration).toMatchObject({
      Enabled: false,
      Alarms: [expect.anything(), expect.anything()],
    });
    expect(group.Properties.AutoRollbackConfiguration).toMatchObject({ Enabled: true });
    expect(emergency.findResources('AWS::Lambda::Alias')).not.toEqual({});
    Annotations.fromStack(stack).hasWarning(
      '/PlantStore-test/Deployment',
      Match.stringLikeRegexp('ignoreAlarmConfiguration is on'),
    );
    Annotations.fromStack(synthStack({ bundle: false }).stack).hasNoWarning(
      '*',
      Match.stringLikeRegexp('ignoreAlarmConfiguration'),
    );
  });
});

describe('PlantStoreStack rollback alarms', () => {
  it('count the errors of the version being deployed, through the alias, each minute', () => {
    const [functionId] = createPlantFunction(template);
    const [versionId] = onlyResource(template, 'AWS::Lambda::Version');
    const [, alarm] = alarmNamed(template, 'AlarmsDeployedVersionErrors');
    expect(alarm.Properties).toMatchObject({
      Namespace: 'AWS/Lambda',
      MetricName: 'Errors',
      Statistic: 'Sum',
      Period: 60,
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      EvaluationPeriods: 1,
      TreatMissingData: 'notBreaching',
    });
    expect(alarm.Properties.Dimensions).toEqual(
      expect.arrayContaining([
        { Name: 'FunctionName', Value: { Ref: functionId } },
        { Name: 'Resource', Value: { 'Fn::Join': ['', [{ Ref: functionId }, ':live']] } },
        { Name: 'ExecutedVersion', Value: { 'Fn::GetAtt': [versionId, 'Version'] } },
      ]),
    );
    expect(alarm.Properties.Dimensions).toHaveLength(3);
  });

  it("read the share of the new version's own answers that were 500s, two bad minutes of three", () => {
    const [functionId] = createPlantFunction(template);
    const [versionId] = onlyResource(template, 'AWS::Lambda::Version');
    const [, alarm] = alarmNamed(template, 'AlarmsDeployedVersionFailureRate');
    expect(alarm.Properties).toMatchObject({
      Threshold: 5,
      ComparisonOperator: 'GreaterThanThreshold',
      EvaluationPeriods: 3,
      DatapointsToAlarm: 2,
      TreatMissingData: 'notBreaching',
    });
    const metrics = alarm.Properties.Metrics as {
      Id: string;
      Expression?: string;
      MetricStat?: {
        Metric: { Namespace: string; MetricName: string; Dimensions: unknown[] };
        Period: number;
        Stat: string;
      };
    }[];
    expect(metrics.find((metric) => metric.Expression)?.Expression).toBe(
      'IF(requests > 0, 100 * FILL(failures, 0) / requests, 0)',
    );
    const series = metrics.flatMap((metric) => (metric.MetricStat ? [metric] : []));
    expect(series.map(({ Id, MetricStat }) => [Id, MetricStat?.Metric.MetricName])).toEqual([
      ['requests', 'VersionRequests'],
      ['failures', 'VersionFailures'],
    ]);
    for (const { MetricStat } of series) {
      expect(MetricStat).toMatchObject({ Period: 60, Stat: 'Sum' });
      expect(MetricStat?.Metric.Namespace).toBe('PlantStore');
      expect(MetricStat?.Metric.Dimensions).toEqual(
        expect.arrayContaining([
          { Name: 'Service', Value: { Ref: functionId } },
          { Name: 'FunctionVersion', Value: { 'Fn::GetAtt': [versionId, 'Version'] } },
        ]),
      );
      expect(MetricStat?.Metric.Dimensions).toHaveLength(2);
    }
    // Nothing the old version, the gateway or a dependency does is read.
    expect(JSON.stringify(metrics)).not.toContain('AWS/ApiGateway');
  });

  it('count requests and 500s from the function log group by version, not 503s', () => {
    const [, logConfig] = createPlantFunction(template);
    const { LogGroup } = logConfig.Properties.LoggingConfig as { LogGroup: { Ref: string } };
    const filters = Object.values(template.findResources('AWS::Logs::MetricFilter'));
    expect(
      filters.map(({ Properties }) => [
        Properties.MetricTransformations[0].MetricName,
        Properties.FilterPattern,
      ]),
    ).toEqual([
      ['VersionRequests', '{ $.message = "request" }'],
      ['VersionFailures', '{ ($.message = "request") && ($.outcome = "error") }'],
    ]);
    for (const { Properties } of filters) {
      expect(Properties.LogGroupName).toEqual({ Ref: LogGroup.Ref });
      expect(Properties.MetricTransformations).toEqual([
        {
          MetricNamespace: 'PlantStore',
          MetricName: expect.any(String),
          MetricValue: '1',
          Dimensions: [
            { Key: 'Service', Value: '$.Service' },
            { Key: 'FunctionVersion', Value: '$.functionVersion' },
          ],
        },
      ]);
    }
  });

  it.each(['AlarmsDeployedVersionErrors', 'AlarmsDeployedVersionFailureRate'])(
    '%s is named for the version, so each new version gets a fresh alarm, not one left in ALARM',
    (idPrefix) => {
      const [versionId] = onlyResource(template, 'AWS::Lambda::Version');
      const [, alarm] = alarmNamed(template, idPrefix);
      const nameFor = (version: string) =>
        evaluateCfn(template.toJSON() as CfnTemplate, alarm.Properties.AlarmName, {
          region: 'eu-west-1',
          accountId: '123456789012',
          resources: { [versionId]: { attributes: { Version: version } } },
        });

      // A new AlarmName makes CloudFormation replace the alarm: the new one starts without state.
      expect(nameFor('7')).toBe(`PlantStore-test-${idPrefix.replace(/^Alarms/, '')}-7`);
      expect(nameFor('8')).not.toBe(nameFor('7'));
    },
  );

  it('start counting before the first line of the new version, the pre-traffic check included', () => {
    const [, alarm] = alarmNamed(template, 'AlarmsDeployedVersionFailureRate');
    const filterIds = Object.keys(template.findResources('AWS::Logs::MetricFilter'));
    expect(filterIds).toHaveLength(2);
    expect(alarm.DependsOn).toEqual(expect.arrayContaining(filterIds));
  });
});

describe('PlantStoreStack metrics behind an alias', () => {
  it('keeps the throttles alarm on the whole function: throttling counts every version', () => {
    const [functionId] = createPlantFunction(template);
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'Throttles',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: functionId } }],
    });
  });

  it("finds the handler's metrics under the function's name, which Lambda gives it behind an alias too", () => {
    const [functionId] = createPlantFunction(template);
    const [aliasId] = onlyResource(template, 'AWS::Lambda::Alias');
    const [, dashboard] = onlyResource(template, 'AWS::CloudWatch::Dashboard');
    const body = JSON.stringify(dashboard.Properties.DashboardBody);
    // The Service dimension's value is the next part of the joined body after `"Service","`.
    const parts = (dashboard.Properties.DashboardBody as { 'Fn::Join': [string, unknown[]] })[
      'Fn::Join'
    ][1];
    const afterService = parts.flatMap((part, index) =>
      typeof part === 'string' && part.endsWith('"Service","') ? [parts[index + 1]] : [],
    );
    expect(afterService.length).toBeGreaterThan(0);
    for (const value of afterService) expect(value).toEqual({ Ref: functionId });
    expect(body).not.toContain(aliasId);
  });

  it('keeps every paging alarm on the function, API and table, not on a version', () => {
    const [versionId] = onlyResource(template, 'AWS::Lambda::Version');
    for (const [id, alarm] of Object.entries(template.findResources('AWS::CloudWatch::Alarm'))) {
      if (id.startsWith('AlarmsDeployedVersion')) continue;
      expect(JSON.stringify(alarm.Properties)).not.toContain('ExecutedVersion');
      expect(JSON.stringify(alarm.Properties)).not.toContain(versionId);
    }
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'Errors',
      Dimensions: [{ Name: 'FunctionName', Value: Match.anyValue() }],
      Period: 300,
    });
  });
});
