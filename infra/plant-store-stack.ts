import type { StackProps } from 'aws-cdk-lib';
import { CfnOutput, Stack } from 'aws-cdk-lib';
import { StreamViewType } from 'aws-cdk-lib/aws-dynamodb';
import { Role } from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import { operations } from '../functions/operations.ts';
import { ApiCustomDomain } from './constructs/api-custom-domain.ts';
import { type DeploymentConfigName, GradualDeployment } from './constructs/gradual-deployment.ts';
import { MachineAuth } from './constructs/machine-auth.ts';
import { NewPlantWebhook } from './constructs/new-plant-webhook.ts';
import {
  OperationFunction,
  operationConstructId,
  type TokenIssuerConfig,
} from './constructs/operation-function.ts';
import { OperationalAlarms } from './constructs/operational-alarms.ts';
import { OperationsDashboard } from './constructs/operations-dashboard.ts';
import { PlantsHttpApi } from './constructs/plants-http-api.ts';
import { PlantsTable } from './constructs/plants-table.ts';
import { PreTrafficCheck } from './constructs/pre-traffic-check.ts';
import { stackInstanceId } from './constructs/stack-instance-id.ts';
import {
  type CustomDomainConfig,
  defaultDeploymentConfig,
  defaultDomainPrefixStem,
} from './stage-config.ts';

/** The stage's settings: each key is described in docs/deploy.md#context-keys. */
export interface PlantStoreStackProps extends StackProps {
  readonly stage: string;
  /** @default - a Cognito user pool with a client-credentials app client */
  readonly externalIssuer?: TokenIssuerConfig;
  /** @default `plants-<stage>-<stack instance id>`: unique, and unlike the account id, safe to show */
  readonly authDomainPrefix?: string;
  readonly alarmEmail?: string;
  readonly throttlingRateLimit?: number;
  readonly throttlingBurstLimit?: number;
  /** @default `defaultDeploymentConfig(stage)` */
  readonly deploymentConfig?: DeploymentConfigName;
  /** For an emergency fix that must ship while the rollback alarms fire. */
  readonly ignoreAlarmConfiguration?: boolean;
  readonly customDomain?: CustomDomainConfig;
  /** The CI deploy role, which may read this stage's machine client secret for post-deploy checks. */
  readonly ciRoleArn?: string;
  /** @default - no webhook, and no stream on the table */
  readonly webhookUrl?: string;
  readonly webhookConcurrency?: number;
  /** The CLI's region, so that a synth for a region without EventBridge Pipes fails early. */
  readonly deployRegion?: string;
}

/**
 * The Plant Store API on AWS, one function per operation. Environment-agnostic: no lookups, so it
 * synthesizes without credentials.
 */
export class PlantStoreStack extends Stack {
  constructor(scope: Construct, id: string, props: PlantStoreStackProps) {
    super(scope, id, props);

    const { table } = new PlantsTable(this, 'Plants', {
      stream: props.webhookUrl === undefined ? undefined : StreamViewType.NEW_IMAGE,
    });

    // One issuer or the other, never both: the function trusts exactly one.
    let auth: MachineAuth | undefined;
    let tokenIssuer = props.externalIssuer;
    if (tokenIssuer === undefined) {
      auth = new MachineAuth(this, 'MachineAuth', {
        operations,
        domainPrefix:
          props.authDomainPrefix ??
          `${defaultDomainPrefixStem(props.stage)}${stackInstanceId(this)}`,
      });
      tokenIssuer = auth.tokenIssuer;
      if (props.ciRoleArn !== undefined) {
        auth.grantReadClientSecret(Role.fromRoleArn(this, 'CiRole', props.ciRoleArn));
      }
    } else {
      new CfnOutput(this, 'AuthIssuer', {
        description: 'The external issuer whose tokens the API accepts',
        value: tokenIssuer.issuer,
      });
    }

    // One function per operation (docs/decisions/0090-one-function-per-operation.md), each named
    // after its operation: a new operation is an entry in the list, not a change here.
    const functions = operations.map(
      (operation) =>
        new OperationFunction(this, operationConstructId(operation), {
          operation,
          table,
          tokenIssuer,
        }),
    );

    const http = new PlantsHttpApi(this, 'Http', {
      routes: functions.map(({ operation, alias }) => ({ operation, handler: alias })),
      throttlingRateLimit: props.throttlingRateLimit,
      throttlingBurstLimit: props.throttlingBurstLimit,
    });

    const alarms = new OperationalAlarms(this, 'Alarms', {
      operations: functions,
      api: http.api,
      table,
      alarmEmail: props.alarmEmail,
    });

    // Each function's release is checked, watched and rolled back on its own: its check runs
    // against the version this deploy publishes, before its alias moves to it.
    const releases = functions.map((fn) => ({
      id: fn.node.id,
      alias: fn.alias,
      rollbackAlarms: alarms.rollbackAlarmsOf(fn.operation),
      // The operation's construct is the check's namespace: `CreatePlant/PreTrafficCheck`.
      preTrafficHook: new PreTrafficCheck(fn, 'PreTrafficCheck', {
        operation: fn.operation,
        target: fn.alias.version,
        table,
        tokenSource: auth,
      }).function,
    }));
    new GradualDeployment(this, 'Deployment', {
      releases,
      deploymentConfig: props.deploymentConfig ?? defaultDeploymentConfig(props.stage),
      ignoreAlarmConfiguration: props.ignoreAlarmConfiguration,
    });

    const webhook =
      props.webhookUrl === undefined
        ? undefined
        : new NewPlantWebhook(this, 'NewPlantWebhook', {
            table,
            url: props.webhookUrl,
            alarmTopic: alarms.topic,
            maxConcurrency: props.webhookConcurrency,
            deployRegion: props.deployRegion,
          });

    new OperationsDashboard(this, 'Operations', {
      operations: functions,
      api: http.api,
      table,
      webhook,
    });

    if (props.customDomain !== undefined) {
      new ApiCustomDomain(this, 'CustomDomain', {
        api: http.api,
        stage: http.stage,
        ...props.customDomain,
      });
    }
  }
}
