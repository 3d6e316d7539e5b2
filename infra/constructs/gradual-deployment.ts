import { Validations } from 'aws-cdk-lib';
import type { IAlarm } from 'aws-cdk-lib/aws-cloudwatch';
import type { ILambdaDeploymentConfig } from 'aws-cdk-lib/aws-codedeploy';
import { LambdaDeploymentConfig, LambdaDeploymentGroup } from 'aws-cdk-lib/aws-codedeploy';
import type { Alias } from 'aws-cdk-lib/aws-lambda';
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

export interface GradualDeploymentProps {
  /** The alias callers invoke; its version is what each deploy moves. */
  readonly alias: Alias;
  /** How traffic moves to the new version. */
  readonly deploymentConfig: DeploymentConfigName;
  /** Any of these in ALARM while traffic moves rolls the alias back to the previous version. */
  readonly rollbackAlarms: readonly IAlarm[];
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
      autoRollback: { failedDeployment: true, deploymentInAlarm: true, stoppedDeployment: true },
    });

    // CloudFormation updates the alias (and so starts the shift) only after the alarms, whose
    // dimensions name the new version: otherwise a canary could run watched by last release's.
    props.alias.node.addDependency(...props.rollbackAlarms);

    Validations.of(this.deploymentGroup).acknowledge({
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSCodeDeployRoleForLambdaLimited]',
      reason:
        "LambdaDeploymentGroup always attaches CodeDeploy's own service policy for Lambda, its " +
        'limited variant (read and update aliases, read alarms, invoke CodeDeployHook_* hooks), ' +
        'which AWS maintains as CodeDeploy changes; it grants no access to the table or the pool.',
    });
  }
}
