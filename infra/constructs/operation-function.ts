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

/** The scopes the API's operations require, as `functions/operations.ts` names them. */
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
  /** The function may make the operation's DynamoDB calls on this table, and nothing else. */
  readonly table: ITable;
  readonly tokenIssuer: TokenIssuerConfig;
}

/**
 * The construct id of an operation's function, `CreatePlant` for `create-plant`; the stack's other
 * per-operation constructs are named after it. Logical ids derive from it, and a changed logical
 * id replaces the function, so it stays this spelling (operation-function.test.ts pins POST's).
 */
export function operationConstructId(operation: Pick<Operation, 'name'>): string {
  return operation.name
    .split('-')
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('');
}

/**
 * One operation's function (`functions/<name>/handler.ts`) with active tracing and a role that can
 * only write its log group, send traces, and make the operation's own DynamoDB calls on the table.
 * Callers reach it through the alias `live`, which CodeDeploy moves to each published version.
 */
export class OperationFunction extends Construct {
  readonly operation: Operation;
  readonly function: IFunction;
  /** What the HTTP API invokes; its `version` is the one this deploy published. */
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

    // A role of our own instead of AWSLambdaBasicExecutionRole, whose logs actions apply to every
    // log group in the account.
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
        // currentVersion hashes the function's template, where a table or pool appears as a
        // {Ref}, not as its name: replaced, it would publish no version, and `live` would keep
        // the old name. CloudFormation replaces a version whose description changes, so the
        // values behind those references, written here, publish one.
        description: Lazy.string({
          produce: (): string => deployTimeValues(fn.node.defaultChild as CfnFunction),
        }),
      },
    });
    this.function = fn;
    this.alias = new Alias(this, 'LiveAlias', { aliasName: 'live', version: fn.currentVersion });

    this.logGroup.grantWrite(role);
    // Exactly the calls the operation's store makes, on this one table (it has no indexes, so the
    // table ARN alone): a function that lists cannot delete, one that deletes cannot read.
    table.grant(role, ...operation.dynamodbActions);

    Validations.of(role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'X-Ray PutTraceSegments and PutTelemetryRecords support no resource-level permissions, so ' +
        'active tracing needs Resource "*"; they are the only actions granted on "*".',
    });
  }
}

/**
 * The deploy-time references (`Ref`, `Fn::GetAtt`) in the function's environment, each once (a
 * version description holds at most 256 characters), joined by spaces
 * (docs/decisions/0031-deploy-time-config-in-the-version.md).
 */
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
