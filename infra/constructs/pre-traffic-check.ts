import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type { IUserPool, IUserPoolClient } from 'aws-cdk-lib/aws-cognito';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { Grant, IGrantable } from 'aws-cdk-lib/aws-iam';
import { Effect, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IVersion } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { Operation } from '../../functions/operations.ts';
import { hookEnvNames } from '../../functions/pre-traffic-check/hook-config.ts';
import { preTrafficCheckBundlingOptions } from '../bundling/bundling.ts';
import { HandlerFunction } from './handler-function.ts';

/**
 * Where the hook gets a client-credentials token: the stack's own Cognito pool and client
 * (`MachineAuth`).
 */
export interface PreTrafficTokenSource {
  readonly userPool: IUserPool;
  readonly client: IUserPoolClient;
  /** The pool domain's token endpoint. */
  readonly tokenUrl: string;
  /** Each scope the client may ask for, as tokens carry it. */
  readonly scopes: Readonly<Partial<Record<Operation['scope'], string>>>;
  grantReadClientSecret(grantee: IGrantable): Grant;
}

export interface PreTrafficCheckProps {
  /** The operation whose checks the hook runs (`functions/<name>/checks.ts`). */
  readonly operation: Operation;
  /** The version the deployment is about to send traffic to; the hook invokes it directly. */
  readonly target: IVersion;
  /** The stage's table, where the hook's fixture keeps the check plant the cases work on. */
  readonly table: ITable;
  /**
   * With a token source the hook also runs the cases that need a token, with one that carries
   * the operation's scope, on a check plant in `table`; without one (an external issuer, whose
   * client secret the stack does not hold) it runs only the checks that need no token, on none.
   * @default - no token
   */
  readonly tokenSource?: PreTrafficTokenSource;
}

/**
 * Leaves room for a token request to a Cognito domain created in the same deploy, which answers
 * only after up to a minute, then the checks, then the report: the hook reports before this runs
 * out, or CodeDeploy would wait an hour for it.
 */
export const preTrafficCheckTimeout = Duration.minutes(3);

/**
 * CodeDeploy's BeforeAllowTraffic hook for one operation: it runs that operation's checks against
 * the new version before the alias sends it any request; a failure rolls the deployment back.
 */
export class PreTrafficCheck extends Construct {
  readonly function: HandlerFunction;

  constructor(scope: Construct, id: string, props: PreTrafficCheckProps) {
    super(scope, id);
    const { operation, target, table, tokenSource } = props;

    const logGroup = new LogGroup(this, 'LogGroup', {
      retention: RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
    });
    const role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: 'pre-traffic check: invoke the version being deployed, report to CodeDeploy',
    });

    const tokenEnvironment: Record<string, string> =
      tokenSource === undefined
        ? {}
        : {
            [hookEnvNames.tokenUrl]: tokenSource.tokenUrl,
            [hookEnvNames.userPoolId]: tokenSource.userPool.userPoolId,
            [hookEnvNames.clientId]: tokenSource.client.userPoolClientId,
            [hookEnvNames.tokenScope]: tokenSource.scopes[operation.scope] ?? operation.scope,
            [hookEnvNames.tableName]: table.tableName,
          };
    this.function = new HandlerFunction(this, 'Function', {
      folder: 'pre-traffic-check',
      bundling: preTrafficCheckBundlingOptions,
      memorySize: 256,
      // No dashboard reads the hook's REPORT lines.
      systemLogLevelV2: undefined,
      timeout: preTrafficCheckTimeout,
      role,
      logGroup,
      description: `BeforeAllowTraffic: check the new ${operation.name} version before it gets traffic`,
      environment: {
        // The qualified ARN of the version this deploy publishes: it changes with every release,
        // and so updates this function before the alias moves.
        [hookEnvNames.targetFunctionArn]: target.functionArn,
        [hookEnvNames.operation]: operation.name,
        ...tokenEnvironment,
      },
    });

    logGroup.grantWrite(role);
    // That version only: not the function's other versions, its alias, $LATEST or another function.
    role.addToPolicy(
      new PolicyStatement({
        effect: Effect.ALLOW,
        actions: ['lambda:InvokeFunction'],
        resources: [target.functionArn],
      }),
    );
    if (tokenSource !== undefined) {
      // The hook reads the client's secret itself, so that it never sits in an environment variable.
      tokenSource.grantReadClientSecret(role);
      // The fixture's store calls: the plant's create and the read of its ETag, and its delete.
      table.grant(role, 'dynamodb:PutItem', 'dynamodb:GetItem', 'dynamodb:DeleteItem');
    }
  }
}
