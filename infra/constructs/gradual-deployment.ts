import { Annotations, type CfnResource, Stack, Validations } from 'aws-cdk-lib';
import type { IAlarm } from 'aws-cdk-lib/aws-cloudwatch';
import type { ILambdaDeploymentConfig } from 'aws-cdk-lib/aws-codedeploy';
import { LambdaDeploymentConfig, LambdaDeploymentGroup } from 'aws-cdk-lib/aws-codedeploy';
import type { Alias, IFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';

/**
 * CodeDeploy's predefined Lambda traffic shifts, named as AWS names them without the
 * `CodeDeployDefault.Lambda` prefix: a canary moves 10 % first and the rest after the interval,
 * linear moves 10 % every interval, all-at-once moves everything at once.
 */
export const deploymentConfigNames = [
  'AllAtOnce',
  'Canary10Percent5Minutes',
  'Canary10Percent10Minutes',
  'Canary10Percent15Minutes',
  'Canary10Percent30Minutes',
  'Linear10PercentEvery1Minute',
  'Linear10PercentEvery2Minutes',
  'Linear10PercentEvery3Minutes',
  'Linear10PercentEvery10Minutes',
] as const;
export type DeploymentConfigName = (typeof deploymentConfigNames)[number];

/** Each name, mapped to CodeDeploy's predefined configuration. */
const deploymentConfigs: Record<DeploymentConfigName, ILambdaDeploymentConfig> = {
  AllAtOnce: LambdaDeploymentConfig.ALL_AT_ONCE,
  Canary10Percent5Minutes: LambdaDeploymentConfig.CANARY_10PERCENT_5MINUTES,
  Canary10Percent10Minutes: LambdaDeploymentConfig.CANARY_10PERCENT_10MINUTES,
  Canary10Percent15Minutes: LambdaDeploymentConfig.CANARY_10PERCENT_15MINUTES,
  Canary10Percent30Minutes: LambdaDeploymentConfig.CANARY_10PERCENT_30MINUTES,
  Linear10PercentEvery1Minute: LambdaDeploymentConfig.LINEAR_10PERCENT_EVERY_1MINUTE,
  Linear10PercentEvery2Minutes: LambdaDeploymentConfig.LINEAR_10PERCENT_EVERY_2MINUTES,
  Linear10PercentEvery3Minutes: LambdaDeploymentConfig.LINEAR_10PERCENT_EVERY_3MINUTES,
  Linear10PercentEvery10Minutes: LambdaDeploymentConfig.LINEAR_10PERCENT_EVERY_10MINUTES,
};

/**
 * At most how long each config takes from the first request on the new version to the last shift,
 * in minutes: a canary waits one interval; linear takes ten steps of 10 %, counted here as ten
 * intervals. The deploy job and its role session must outlast the longest (workflows.test.ts).
 */
export const shiftMinutes: Record<DeploymentConfigName, number> = {
  AllAtOnce: 0,
  Canary10Percent5Minutes: 5,
  Canary10Percent10Minutes: 10,
  Canary10Percent15Minutes: 15,
  Canary10Percent30Minutes: 30,
  Linear10PercentEvery1Minute: 10,
  Linear10PercentEvery2Minutes: 20,
  Linear10PercentEvery3Minutes: 30,
  Linear10PercentEvery10Minutes: 100,
};

export interface GradualDeploymentProps {
  /** The alias callers invoke; its version is what each deploy moves. */
  readonly alias: Alias;
  /** How traffic moves to the new version. */
  readonly deploymentConfig: DeploymentConfigName;
  /** Any of these in ALARM while traffic moves rolls the alias back to the previous version. */
  readonly rollbackAlarms: readonly IAlarm[];
  /**
   * CodeDeploy's BeforeAllowTraffic hook: it checks the new version before any traffic moves to
   * it, with every deployment config, all at once included, and a failed check ends the deployment.
   * @default - no hook
   */
  readonly preTrafficHook?: IFunction;
  /**
   * Deploy without reading the rollback alarms, for an emergency fix that must go out while they
   * fire. The hook still runs, and a failed or stopped deployment still rolls back.
   * @default false
   */
  readonly ignoreAlarmConfiguration?: boolean;
}

/**
 * Shifts the alias to each newly published version through CodeDeploy instead of at once:
 * CloudFormation hands the alias update to the deployment group and waits for it, so `cdk deploy`
 * ends when the shift has finished or been rolled back (and then fails, rolling the stack back).
 */
export class GradualDeployment extends Construct {
  readonly deploymentGroup: LambdaDeploymentGroup;

  constructor(scope: Construct, id: string, props: GradualDeploymentProps) {
    super(scope, id);

    this.deploymentGroup = new LambdaDeploymentGroup(this, 'DeploymentGroup', {
      alias: props.alias,
      deploymentConfig: deploymentConfigs[props.deploymentConfig],
      alarms: [...props.rollbackAlarms],
      ignoreAlarmConfiguration: props.ignoreAlarmConfiguration ?? false,
      autoRollback: { failedDeployment: true, deploymentInAlarm: true, stoppedDeployment: true },
      preHook: props.preTrafficHook,
    });

    // CloudFormation updates the alias (and so starts the shift) only after the alarms, which name
    // the new version, the deployment group, which lists them, and the hook, which targets that
    // version: otherwise a deployment could run watched or checked by last release's.
    props.alias.node.addDependency(...props.rollbackAlarms, this.deploymentGroup);
    const hook = props.preTrafficHook;
    if (hook !== undefined) {
      // The role too: its policy, which lets the hook invoke the version, changes with it.
      props.alias.node.addDependency(hook, ...(hook.role === undefined ? [] : [hook.role]));
      const hookId = Stack.of(this).resolve((hook.node.defaultChild as CfnResource).logicalId);
      Validations.of(this.deploymentGroup).acknowledge({
        id: `AwsSolutions-IAM5[Resource::<${hookId}.Arn>:*]`,
        reason:
          "LambdaDeploymentGroup's preHook lets CodeDeploy invoke the hook function and any of " +
          'its versions and aliases; the hook has neither, so this names one function only.',
      });
    }

    if (props.ignoreAlarmConfiguration === true) {
      Annotations.of(this).addWarningV2(
        'plant-store:ignoreAlarmConfiguration',
        'ignoreAlarmConfiguration is on: this deployment shifts traffic without reading the ' +
          'rollback alarms. Turn it off again with the next deploy.',
      );
    }

    Validations.of(this.deploymentGroup).acknowledge({
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSCodeDeployRoleForLambdaLimited]',
      reason:
        "LambdaDeploymentGroup always attaches CodeDeploy's own service policy for Lambda, its " +
        'limited variant (read and update aliases, read alarms, invoke CodeDeployHook_* hooks), ' +
        'which AWS maintains as CodeDeploy changes; it grants no access to the table or the pool.',
    });
  }
}
