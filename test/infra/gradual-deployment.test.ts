import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { onlyResource, type TemplateResource as Resource, synthStack } from '../support/synth.ts';

let template: Template;

beforeAll(() => {
  // The stage `test`: not `dev`, so it gets the default canary.
  template = synthStack({ bundle: false }).template;
});

const alarmNamed = (from: Template, idPrefix: string): [string, Resource] => {
  const found = Object.entries(from.findResources('AWS::CloudWatch::Alarm')).filter(([id]) =>
    id.startsWith(idPrefix),
  ) as [string, Resource][];
  expect(found).toHaveLength(1);
  return found[0] as [string, Resource];
};

describe('PlantStoreStack live alias', () => {
  it('points the alias live at the version this deploy publishes', () => {
    const [functionId] = onlyResource(template, 'AWS::Lambda::Function');
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
  it('hands every alias update to the CodeDeploy deployment group', () => {
    const [groupId] = onlyResource(template, 'AWS::CodeDeploy::DeploymentGroup');
    const [applicationId] = onlyResource(template, 'AWS::CodeDeploy::Application');
    template.hasResourceProperties('AWS::CodeDeploy::Application', { ComputePlatform: 'Lambda' });
    const [, alias] = onlyResource(template, 'AWS::Lambda::Alias');
    expect(alias.UpdatePolicy).toEqual({
      CodeDeployLambdaAliasUpdate: {
        ApplicationName: { Ref: applicationId },
        DeploymentGroupName: { Ref: groupId },
      },
    });
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

  it("watches exactly the deployed version's errors and the API 5xx rate, and stops on a failed poll", () => {
    const [versionErrorsId] = alarmNamed(template, 'AlarmsDeployedVersionErrors');
    const [serverErrorsId] = alarmNamed(template, 'AlarmsDeploymentApi5xxRate');
    const [, group] = onlyResource(template, 'AWS::CodeDeploy::DeploymentGroup');
    expect(group.Properties.AlarmConfiguration).toEqual({
      Enabled: true,
      Alarms: [{ Name: { Ref: versionErrorsId } }, { Name: { Ref: serverErrorsId } }],
    });
  });

  it('updates the rollback alarms before it moves the alias, so a canary is watched by its own', () => {
    const [versionErrorsId] = alarmNamed(template, 'AlarmsDeployedVersionErrors');
    const [serverErrorsId] = alarmNamed(template, 'AlarmsDeploymentApi5xxRate');
    const [, alias] = onlyResource(template, 'AWS::Lambda::Alias');
    expect(alias.DependsOn).toEqual(expect.arrayContaining([versionErrorsId, serverErrorsId]));
  });
});

describe('PlantStoreStack rollback alarms', () => {
  it('count the errors of the version being deployed, through the alias, each minute', () => {
    const [functionId] = onlyResource(template, 'AWS::Lambda::Function');
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

  it('read the API 5xx rate per minute, two bad minutes of three, fast enough for a 5-minute canary', () => {
    const [, alarm] = alarmNamed(template, 'AlarmsDeploymentApi5xxRate');
    expect(alarm.Properties).toMatchObject({
      Threshold: 5,
      ComparisonOperator: 'GreaterThanThreshold',
      EvaluationPeriods: 3,
      DatapointsToAlarm: 2,
      TreatMissingData: 'notBreaching',
    });
    const metrics = alarm.Properties.Metrics as {
      Expression?: string;
      MetricStat?: { Metric: { MetricName: string }; Period: number };
    }[];
    expect(metrics.find((metric) => metric.Expression)?.Expression).toBe(
      'IF(requests > 0, 100 * errors / requests, 0)',
    );
    expect(
      metrics.flatMap((metric) =>
        metric.MetricStat ? [[metric.MetricStat.Metric.MetricName, metric.MetricStat.Period]] : [],
      ),
    ).toEqual([
      ['5xx', 60],
      ['Count', 60],
    ]);
  });
});

describe('PlantStoreStack metrics behind an alias', () => {
  it('keeps the throttles alarm on the whole function: throttling counts every version', () => {
    const [functionId] = onlyResource(template, 'AWS::Lambda::Function');
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'Throttles',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: functionId } }],
    });
  });

  it("finds the handler's metrics under the function's name, which Lambda gives it behind an alias too", () => {
    const [functionId] = onlyResource(template, 'AWS::Lambda::Function');
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
    for (const [id, alarm] of Object.entries(template.findResources('AWS::CloudWatch::Alarm'))) {
      if (id.startsWith('AlarmsDeployedVersionErrors')) continue;
      expect(JSON.stringify(alarm.Properties)).not.toContain('ExecutedVersion');
    }
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'Errors',
      Dimensions: [{ Name: 'FunctionName', Value: Match.anyValue() }],
      Period: 300,
    });
  });
});
