import { Annotations, type CfnResource, Stack, Validations } from 'aws-cdk-lib';
import type { IAlarm } from 'aws-cdk-lib/aws-cloudwatch';
import type { ILambdaDeploymentConfig } from 'aws-cdk-lib/aws-codedeploy';
import {
  LambdaApplication,
  LambdaDeploymentConfig,
  LambdaDeploymentGroup,
} from 'aws-cdk-lib/aws-codedeploy';
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

/** One function's releases: its alias, what rolls a shift back, and what checks it first. */
export interface FunctionRelease {
  /** The deployment group's construct id, after the function's (`CreatePlant`). */
  readonly id: string;
  /** The alias callers invoke; its version is what each deploy moves. */
  readonly alias: Alias;
  /** Any of these in ALARM while traffic moves rolls this alias back to the previous version. */
  readonly rollbackAlarms: readonly IAlarm[];
  /**
   * CodeDeploy's BeforeAllowTraffic hook: it checks the new version before any traffic moves to
   * it, with every deployment config, all at once included, and a failed check ends the deployment.
   * @default - no hook
   */
  readonly preTrafficHook?: IFunction;
}

export interface GradualDeploymentProps {
  /** Each function released through its alias: one deployment group each. */
  readonly releases: readonly FunctionRelease[];
  /** How traffic moves to the new version, for every function alike. */
  readonly deploymentConfig: DeploymentConfigName;
  /**
   * Deploy without reading the rollback alarms, for an emergency fix that must go out while they
   * fire. The hooks still run, and a failed or stopped deployment still rolls back.
   * @default false
   */
  readonly ignoreAlarmConfiguration?: boolean;
}

/**
 * Shifts each alias to its newly published version through CodeDeploy instead of at once: one
 * application, and a deployment group per function, so that each function's release is checked,
 * watched and rolled back on its own. CloudFormation hands each alias update to its group and
 * waits for it, so `cdk deploy` ends when every shift has finished or been rolled back (and then
 * fails, rolling the stack back).
 */
export class GradualDeployment extends Construct {
  readonly application: LambdaApplication;
  /** By the release's id. */
  readonly deploymentGroups: ReadonlyMap<string, LambdaDeploymentGroup>;

  constructor(scope: Construct, id: string, props: GradualDeploymentProps) {
    super(scope, id);
    this.application = new LambdaApplication(this, 'Application');
    const groups = new Map<string, LambdaDeploymentGroup>();
    for (const release of props.releases) {
      groups.set(release.id, this.#release(release, props));
    }
    this.deploymentGroups = groups;

    if (props.ignoreAlarmConfiguration === true) {
      Annotations.of(this).addWarningV2(
        'plant-store:ignoreAlarmConfiguration',
        'ignoreAlarmConfiguration is on: this deployment shifts traffic without reading the ' +
          'rollback alarms. Turn it off again with the next deploy.',
      );
    }
  }

  #release(release: FunctionRelease, props: GradualDeploymentProps): LambdaDeploymentGroup {
    const group = new LambdaDeploymentGroup(this, release.id, {
      application: this.application,
      alias: release.alias,
      deploymentConfig: deploymentConfigs[props.deploymentConfig],
      alarms: [...release.rollbackAlarms],
      ignoreAlarmConfiguration: props.ignoreAlarmConfiguration ?? false,
      autoRollback: { failedDeployment: true, deploymentInAlarm: true, stoppedDeployment: true },
      preHook: release.preTrafficHook,
    });

    // CloudFormation updates the alias (and so starts the shift) only after the alarms, which name
    // the new version, the deployment group, which lists them, and the hook, which targets that
    // version: otherwise a deployment could run watched or checked by last release's.
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
    return group;
  }
}
