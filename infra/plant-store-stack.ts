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

export interface PlantStoreStackProps extends StackProps {
  /** The deployment's name (`dev`, `prod`): it feeds the Cognito domain prefix and shift defaults. */
  readonly stage: string;
  /**
   * Trust this OIDC issuer (Auth0, Entra ID, Okta) instead of creating a Cognito user pool.
   * @default - a Cognito user pool with a client-credentials app client
   */
  readonly externalIssuer?: TokenIssuerConfig;
  /**
   * The Cognito domain prefix, which must be unique in the region across all accounts.
   * @default `plants-<stage>-<stack instance id>` (see `stackInstanceId`): unique, and unlike the
   * account id, safe to show in the token URL. A stage containing `aws`, `amazon` or `cognito`
   * needs an explicit prefix.
   */
  readonly authDomainPrefix?: string;
  /** @default - no SNS topic */
  readonly alarmEmail?: string;
  /** @default 100 */
  readonly throttlingRateLimit?: number;
  /** @default 200 */
  readonly throttlingBurstLimit?: number;
  /**
   * How CodeDeploy moves the `live` alias to a newly published version.
   * @default `defaultDeploymentConfig(stage)`: all at once for `dev`, else a 10 % canary for 5 minutes
   */
  readonly deploymentConfig?: DeploymentConfigName;
  /**
   * Shift traffic without reading the rollback alarms, for an emergency fix that must go out while
   * they fire; the pre-traffic check still runs.
   * @default false
   */
  readonly ignoreAlarmConfiguration?: boolean;
  /**
   * Serve the API on this name too, with this ACM certificate of the stack's region.
   * @default - the execute-api URL only
   */
  readonly customDomain?: CustomDomainConfig;
  /**
   * The CI deploy role (`PlantStore-ci`'s `DeployRoleArn`): with the Cognito issuer, it may read
   * this stage's machine client secret, and no other pool's, for the checks after a deploy.
   * @default - no role is granted anything
   */
  readonly ciRoleArn?: string;
  /**
   * Deliver every new plant, signed, to this https URL (docs/webhooks.md): the table gets a
   * stream, and the stack a pipe, a queue, its DLQ, the deliverer and the signing secret.
   * @default - no webhook, and no stream on the table
   */
  readonly webhookUrl?: string;
  /**
   * With `webhookUrl`: the most deliverers running at once (2 to 1000).
   * @default webhookSettings.mappingMaxConcurrency (5)
   */
  readonly webhookConcurrency?: number;
  /**
   * The region the CLI deploys to (`CDK_DEFAULT_REGION`), for the checks a synth can make without
   * tying the template to it: a webhook in a region without EventBridge Pipes fails the synth.
   * @default - the stack's region, when it has one
   */
  readonly deployRegion?: string;
}

/**
 * The Plant Store API on AWS: the operations of `functions/operations.ts` on an HTTP API, one
 * function each with its own role, release and alarms, one table, a Cognito token issuer (or an
 * external one) and the alarms an operator needs. Environment-agnostic: no lookups, so it
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
