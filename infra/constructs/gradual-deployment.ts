import { Annotations, type CfnResource, Stack, Validations } from 'aws-cdk-lib';
import type { IAlarm } from 'aws-cdk-lib/aws-cloudwatch';
import {
  LambdaApplication,
  LambdaDeploymentConfig,
  LambdaDeploymentGroup,
} from 'aws-cdk-lib/aws-codedeploy';
import type { Alias, IFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';

/**
 * CodeDeploy's predefined Lambda traffic shifts, named as AWS names them without the
 * `CodeDeployDefault.Lambda` prefix, each with at most how long it takes from the first request on
 * the new version to the last shift, in minutes: a canary waits one interval, linear takes ten
 * steps of 10 %. The deploy job and its role session must outlast the longest (workflows.test.ts).
 */
const deploymentConfigs = {
  AllAtOnce: [LambdaDeploymentConfig.ALL_AT_ONCE, 0],
  Canary10Percent5Minutes: [LambdaDeploymentConfig.CANARY_10PERCENT_5MINUTES, 5],
  Canary10Percent10Minutes: [LambdaDeploymentConfig.CANARY_10PERCENT_10MINUTES, 10],
  Canary10Percent15Minutes: [LambdaDeploymentConfig.CANARY_10PERCENT_15MINUTES, 15],
  Canary10Percent30Minutes: [LambdaDeploymentConfig.CANARY_10PERCENT_30MINUTES, 30],
  Linear10PercentEvery1Minute: [LambdaDeploymentConfig.LINEAR_10PERCENT_EVERY_1MINUTE, 10],
  Linear10PercentEvery2Minutes: [LambdaDeploymentConfig.LINEAR_10PERCENT_EVERY_2MINUTES, 20],
  Linear10PercentEvery3Minutes: [LambdaDeploymentConfig.LINEAR_10PERCENT_EVERY_3MINUTES, 30],
  Linear10PercentEvery10Minutes: [LambdaDeploymentConfig.LINEAR_10PERCENT_EVERY_10MINUTES, 100],
} as const;
export type DeploymentConfigName = keyof typeof deploymentConfigs;
export const deploymentConfigNames = Object.keys(deploymentConfigs) as DeploymentConfigName[];
export const shiftMinutes = Object.fromEntries(
  deploymentConfigNames.map((name) => [name, deploymentConfigs[name][1]]),
) as Record<DeploymentConfigName, number>;

/** One function's releases: its alias, what rolls a shift back, and what checks it first. */
export interface FunctionRelease {
  /** The deployment group's construct id, after the function's (`CreatePlant`). */
  readonly id: string;
  readonly alias: Alias;
  /** Any of these in ALARM while traffic moves rolls this alias back to the previous version. */
  readonly rollbackAlarms: readonly IAlarm[];
  /** BeforeAllowTraffic: checks the new version before any traffic moves, with every config. */
  readonly preTrafficHook?: IFunction;
}

export interface GradualDeploymentProps {
  readonly releases: readonly FunctionRelease[];
  readonly deploymentConfig: DeploymentConfigName;
  /**
   * Deploy without reading the rollback alarms, for an emergency fix that must go out while they
   * fire. The hooks still run, and a failed or stopped deployment still rolls back.
   * @default false
   */
  readonly ignoreAlarmConfiguration?: boolean;
}

/**
 * Shifts each alias to its newly published version through CodeDeploy: a deployment group per
 * function, so that each release is checked, watched and rolled back on its own. CloudFormation
 * waits for each shift, so `cdk deploy` ends when every one has finished or been rolled back.
 */
export class GradualDeployment extends Construct {
  constructor(scope: Construct, id: string, props: GradualDeploymentProps) {
    super(scope, id);
    const application = new LambdaApplication(this, 'Application');
    const ignoreAlarmConfiguration = props.ignoreAlarmConfiguration ?? false;
    for (const release of props.releases) {
      const group = new LambdaDeploymentGroup(this, release.id, {
        application,
        alias: release.alias,
        deploymentConfig: deploymentConfigs[props.deploymentConfig][0],
        alarms: [...release.rollbackAlarms],
        ignoreAlarmConfiguration,
        autoRollback: { failedDeployment: true, deploymentInAlarm: true, stoppedDeployment: true },
        preHook: release.preTrafficHook,
      });

      // The alias (whose update starts the shift) waits for the alarms, which name the new
      // version, the group, which lists them, and the hook, which targets that version:
      // otherwise a deployment could run watched or checked by last release's.
      release.alias.node.addDependency(...release.rollbackAlarms, group);
      const hook = release.preTrafficHook;
      if (hook !== undefined) {
        // The role too: its policy, which lets the hook invoke the version, changes with it.
        release.alias.node.addDependency(hook, ...(hook.role === undefined ? [] : [hook.role]));
        const hookId = Stack.of(this).resolve((hook.node.defaultChild as CfnResource).logicalId);
        Validations.of(group).acknowledge({
          id: `AwsSolutions-IAM5[Resource::<${hookId}.Arn>:*]`,
          reason:
            "LambdaDeploymentGroup's preHook lets CodeDeploy invoke the hook function and any of " +
            'its versions and aliases; the hook has neither, so this names one function only.',
        });
      }
      Validations.of(group).acknowledge({
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSCodeDeployRoleForLambdaLimited]',
        reason:
          "LambdaDeploymentGroup always attaches CodeDeploy's own service policy for Lambda, its " +
          'limited variant (read and update aliases, read alarms, invoke CodeDeployHook_* hooks), ' +
          'which AWS maintains as CodeDeploy changes; it grants no access to the table or the pool.',
      });
    }

    if (ignoreAlarmConfiguration) {
      Annotations.of(this).addWarningV2(
        'plant-store:ignoreAlarmConfiguration',
        'ignoreAlarmConfiguration is on: this deployment shifts traffic without reading the ' +
          'rollback alarms. Turn it off again with the next deploy.',
      );
    }
  }
}
