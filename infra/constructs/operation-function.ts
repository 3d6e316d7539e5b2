import { Duration, Fn, Intrinsic, Lazy, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Alias, type CfnFunction, Tracing } from 'aws-cdk-lib/aws-lambda';
import type { ILogGroup } from 'aws-cdk-lib/aws-logs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { envNames } from '../../functions/config.ts';
import { type Operation, routeKey } from '../../functions/operations.ts';
import { functionSettings } from '../function-settings.ts';
import { HandlerFunction } from './handler-function.ts';

export type ApiScope = Operation['scope'];

/** Where the function's bearer tokens come from; becomes the handler's `AUTH_*` variables. */
export interface TokenIssuerConfig {
  /** Must equal the tokens' `iss` claim exactly. */
  readonly issuer: string;
  /** @default `${issuer}/.well-known/jwks.json` */
  readonly jwksUrl?: string;
  /** Accepted `aud` (or Cognito `client_id`) values; at least one. */
  readonly audiences: readonly string[];
  /** What this issuer calls each of the API's scopes, where it names one otherwise. */
  readonly scopes?: Readonly<Partial<Record<ApiScope, string>>>;
}

export interface OperationFunctionProps {
  readonly operation: Operation;
  readonly table: ITable;
  readonly tokenIssuer: TokenIssuerConfig;
}

/** Logical ids derive from it: a changed spelling would replace the function. */
export function operationConstructId(operation: Pick<Operation, 'name'>): string {
  return operation.name
    .split('-')
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('');
}

/** One operation's function, reached through the alias `live`, which CodeDeploy moves. */
export class OperationFunction extends Construct {
  readonly operation: Operation;
  readonly function: IFunction;
  readonly alias: Alias;
  readonly logGroup: ILogGroup;

  constructor(scope: Construct, id: string, props: OperationFunctionProps) {
    super(scope, id);
    const { operation, table, tokenIssuer } = props;
    this.operation = operation;

    this.logGroup = new LogGroup(this, 'LogGroup', {
      retention: RetentionDays.ONE_MONTH,
      // Kept after the stack is deleted, for the investigation; gone with a failed first deploy.
      removalPolicy: RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
    });

    // Not AWSLambdaBasicExecutionRole: its logs actions apply to every log group.
    const role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `${operation.name}: write its own logs and traces; ${operation.dynamodbActions.join(', ')} on the plants table`,
    });

    const fn: HandlerFunction = new HandlerFunction(this, 'Function', {
      folder: operation.name,
      timeout: Duration.seconds(functionSettings.timeoutSeconds),
      role,
      logGroup: this.logGroup,
      tracing: Tracing.ACTIVE,
      description: `${routeKey(operation)}: ${operation.summary}`,
      environment: {
        [envNames.tableName]: table.tableName,
        [envNames.issuer]: tokenIssuer.issuer,
        // Auth0's issuer ends in `/`: the well-known path must not follow a second one.
        [envNames.jwksUrl]:
          tokenIssuer.jwksUrl ?? `${tokenIssuer.issuer.replace(/\/+$/, '')}/.well-known/jwks.json`,
        [envNames.audiences]: tokenIssuer.audiences.join(','),
        [envNames.scope]: tokenIssuer.scopes?.[operation.scope] ?? operation.scope,
      },
      currentVersionOptions: {
        // Rolling back by hand moves the alias to an old version, so none is ever deleted.
        removalPolicy: RemovalPolicy.RETAIN,
        // A replaced table or pool changes no hash: its name here publishes a version.
        description: Lazy.string({
          produce: (): string => deployTimeValues(fn.node.defaultChild as CfnFunction),
        }),
      },
    });
    this.function = fn;
    this.alias = new Alias(this, 'LiveAlias', { aliasName: 'live', version: fn.currentVersion });

    this.logGroup.grantWrite(role);
    // Only the operation's own calls: a function that lists cannot delete.
    table.grant(role, ...operation.dynamodbActions);

    Validations.of(role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'X-Ray PutTraceSegments and PutTelemetryRecords support no resource-level permissions, so ' +
        'active tracing needs Resource "*"; they are the only actions granted on "*".',
    });
  }
}

/** Each once, to fit 256 characters: docs/decisions/0031-deploy-time-config-in-the-version.md */
function deployTimeValues(cfnFunction: CfnFunction): string {
  const found = new Map<string, unknown>();
  const collect = (value: unknown): void => {
    if (typeof value !== 'object' || value === null) return;
    if ('Ref' in value || 'Fn::GetAtt' in value) {
      found.set(JSON.stringify(value), value);
      return;
    }
    for (const each of Object.values(value)) collect(each);
  };
  collect(Stack.of(cfnFunction).resolve(cfnFunction.environment));
  return Fn.join(
    ' ',
    [...found.values()].map((value) => new Intrinsic(value).toString()),
  );
}
