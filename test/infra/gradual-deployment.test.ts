import { Annotations, Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Operation, operations } from '../../functions/operations.ts';
import {
  onlyResource,
  operationResource,
  roleStatements,
  type Synthesized,
  synthStack,
} from '../support/synth.ts';

let synthesized: Synthesized;
let template: Template;

beforeAll(() => {
  // The stage `test`: not `dev`, so it gets the default canary.
  synthesized = synthStack();
  template = synthesized.template;
});

const groupOf = (from: Template, operation: Operation) =>
  operationResource(from, 'AWS::CodeDeploy::DeploymentGroup', operation, '', 'Deployment');
const aliasOf = (from: Template, operation: Operation) =>
  operationResource(from, 'AWS::Lambda::Alias', operation, 'LiveAlias');
const hookOf = (from: Template, operation: Operation) =>
  operationResource(from, 'AWS::Lambda::Function', operation, 'PreTrafficCheckFunction');
const rollbackAlarmsOf = (operation: Operation) =>
  ['DeployedVersionErrors', 'DeployedVersionFailureRate'].map(
    (name) => operationResource(template, 'AWS::CloudWatch::Alarm', operation, name, 'Alarms')[0],
  );

describe('GradualDeployment', () => {
  it('has one CodeDeploy application for Lambda, and a deployment group per operation', () => {
    template.resourceCountIs('AWS::CodeDeploy::Application', 1);
    template.hasResourceProperties('AWS::CodeDeploy::Application', { ComputePlatform: 'Lambda' });
    template.resourceCountIs('AWS::CodeDeploy::DeploymentGroup', operations.length);
    const [applicationId] = onlyResource(template, 'AWS::CodeDeploy::Application');
    for (const operation of operations) {
      expect(groupOf(template, operation)[1].Properties.ApplicationName).toEqual({
        Ref: applicationId,
      });
    }
  });

  it.each(operations)(
    "hands every update of $name's alias to its own deployment group, with its own pre-traffic check",
    (operation) => {
      const [groupId] = groupOf(template, operation);
      const [applicationId] = onlyResource(template, 'AWS::CodeDeploy::Application');
      const [hookId] = hookOf(template, operation);
      const [, alias] = aliasOf(template, operation);

      expect(alias.UpdatePolicy).toEqual({
        CodeDeployLambdaAliasUpdate: {
          ApplicationName: { Ref: applicationId },
          DeploymentGroupName: { Ref: groupId },
          BeforeAllowTrafficHook: { Ref: hookId },
        },
      });
    },
  );

  it('runs the pre-traffic checks in dev too, where all traffic moves at once', () => {
    const { template: dev } = synthStack({ stage: 'dev' });
    dev.allResourcesProperties('AWS::CodeDeploy::DeploymentGroup', {
      DeploymentConfigName: 'CodeDeployDefault.LambdaAllAtOnce',
    });
    for (const operation of operations) {
      const [hookId] = hookOf(dev, operation);
      const [, alias] = aliasOf(dev, operation);
      expect(alias.UpdatePolicy?.CodeDeployLambdaAliasUpdate).toMatchObject({
        BeforeAllowTrafficHook: { Ref: hookId },
      });
    }
  });

  it.each(operations)("lets CodeDeploy invoke $name's hook, and only that hook", (operation) => {
    const [hookId] = hookOf(template, operation);
    const [, group] = groupOf(template, operation);
    const roleId = (group.Properties.ServiceRoleArn as { 'Fn::GetAtt': [string] })['Fn::GetAtt'][0];

    expect(roleStatements(template, roleId)).toEqual([
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
  ])('shifts traffic of every function for %s', (_which, props, configName) => {
    const variant = Object.keys(props).length === 0 ? template : synthStack({ ...props }).template;
    variant.resourceCountIs('AWS::CodeDeploy::DeploymentGroup', operations.length);
    variant.allResourcesProperties('AWS::CodeDeploy::DeploymentGroup', {
      DeploymentConfigName: `CodeDeployDefault.${configName}`,
      DeploymentStyle: { DeploymentType: 'BLUE_GREEN', DeploymentOption: 'WITH_TRAFFIC_CONTROL' },
    });
  });

  it('rolls back when a deployment fails, is stopped, or one of its rollback alarms fires', () => {
    template.allResourcesProperties('AWS::CodeDeploy::DeploymentGroup', {
      AutoRollbackConfiguration: {
        Enabled: true,
        Events: ['DEPLOYMENT_FAILURE', 'DEPLOYMENT_STOP_ON_REQUEST', 'DEPLOYMENT_STOP_ON_ALARM'],
      },
    });
  });

  it.each(operations)(
    "watches exactly $name's own two rollback alarms: another function's release rolls back alone",
    (operation) => {
      const [, group] = groupOf(template, operation);

      expect(group.Properties.AlarmConfiguration).toEqual({
        Enabled: true,
        Alarms: rollbackAlarmsOf(operation).map((id) => ({ Name: { Ref: id } })),
      });
    },
  );

  it.each(operations)(
    "moves $name's alias only after its alarms, the group that lists them and its hook are updated",
    (operation) => {
      const [groupId] = groupOf(template, operation);
      const [hookId] = hookOf(template, operation);
      const [hookPolicyId] = operationResource(
        template,
        'AWS::IAM::Policy',
        operation,
        'PreTrafficCheckRole',
      );
      const [, alias] = aliasOf(template, operation);

      expect(alias.DependsOn).toEqual(
        expect.arrayContaining([...rollbackAlarmsOf(operation), groupId, hookId, hookPolicyId]),
      );
    },
  );

  it('with ignoreAlarmConfiguration, keeps the alarms listed but unread, and warns at synth once', () => {
    const { stack, template: emergency } = synthStack({
      ignoreAlarmConfiguration: true,
    });
    for (const operation of operations) {
      const [, group] = groupOf(emergency, operation);
      expect(group.Properties.AlarmConfiguration).toMatchObject({
        Enabled: false,
        Alarms: [expect.anything(), expect.anything()],
      });
      expect(group.Properties.AutoRollbackConfiguration).toMatchObject({ Enabled: true });
      expect(aliasOf(emergency, operation)).toBeDefined();
    }
    const warnings = Annotations.fromStack(stack).findWarning(
      '*',
      Match.stringLikeRegexp('ignoreAlarmConfiguration is on'),
    );
    expect(warnings.map((warning) => warning.id)).toEqual(['/PlantStore-test/Deployment']);
    Annotations.fromStack(synthesized.stack).hasNoWarning(
      '*',
      Match.stringLikeRegexp('ignoreAlarmConfiguration'),
    );
  });
});
