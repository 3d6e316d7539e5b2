import path from 'node:path';
import { Duration, Fn, Intrinsic, Lazy, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IRole } from 'aws-cdk-lib/aws-iam';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import {
  Alias,
  ApplicationLogLevel,
  Architecture,
  type CfnFunction,
  LoggingFormat,
  Runtime,
  SystemLogLevel,
  Tracing,
} from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { ILogGroup } from 'aws-cdk-lib/aws-logs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { envNames } from '../../functions/config.ts';
import {
  cdkBundlingOptions,
  createPlantEntry,
  nodeOptions,
  projectRoot,
} from '../bundling/bundling.ts';
import { createPlantFunctionSettings } from '../function-settings.ts';

/**
 * Where the function's bearer tokens come from; becomes the handler's `AUTH_*` variables. Defined
 * here, by the construct that reads it: `MachineAuth` produces one, the stage config reads one.
 */
export interface TokenIssuerConfig {
  /** Must equal the tokens' `iss` claim exactly. */
  readonly issuer: string;
  /**
   * The issuer's signing keys.
   * @default `${issuer}/.well-known/jwks.json`
   */
  readonly jwksUrl?: string;
  /** Accepted `aud` (or Cognito `client_id`) values; at least one. */
  readonly audiences: readonly string[];
  /**
   * The scope a token must carry to create plants.
   * @default 'plants/write'
   */
  readonly scope?: string;
}

export interface CreatePlantFunctionProps {
  /** The function may put and get items in this table, and nothing else. */
  readonly table: ITable;
  readonly tokenIssuer: TokenIssuerConfig;
  /** @default createPlantFunctionSettings.memoryMb (1024; the reason is beside it) */
  readonly memorySize?: number;
  /** @default createPlantFunctionSettings.timeoutSeconds (10; the reason is beside it) */
  readonly timeout?: Duration;
  /** @default RetentionDays.ONE_MONTH */
  readonly logRetention?: RetentionDays;
}

/** The alias callers invoke; CodeDeploy moves it from one published version to the next. */
export const liveAliasName = 'live';

/**
 * The create-plant Lambda function: Node 24 on arm64, bundled locally by esbuild with the shared
 * options, JSON logs, active tracing, and a role that can only write its log group, send traces,
 * and put and get items in the plants table. Every deploy that changes it publishes a version,
 * and callers reach it through the alias `live`, never through `$LATEST`.
 */
export class CreatePlantFunction extends Construct {
  readonly function: IFunction;
  /** `live`: what the HTTP API invokes; its `version` is the one this deploy published. */
  readonly alias: Alias;
  readonly role: IRole;
  readonly logGroup: ILogGroup;

  constructor(scope: Construct, id: string, props: CreatePlantFunctionProps) {
    super(scope, id);
    const { table, tokenIssuer } = props;

    this.logGroup = new LogGroup(this, 'LogGroup', {
      retention: props.logRetention ?? RetentionDays.ONE_MONTH,
      // Kept after the stack is deleted, for the investigation; gone with a failed first deploy.
      removalPolicy: RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
    });

    // A role of our own instead of AWSLambdaBasicExecutionRole, whose logs actions apply to every
    // log group in the account.
    const role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: 'create-plant: write its own logs and traces, put and get plants',
    });
    this.role = role;

    const fn: NodejsFunction = new NodejsFunction(this, 'Function', {
      entry: createPlantEntry,
      handler: 'handler',
      projectRoot,
      depsLockFilePath: path.join(projectRoot, 'package-lock.json'),
      bundling: cdkBundlingOptions,
      runtime: Runtime.NODEJS_24_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize ?? createPlantFunctionSettings.memoryMb,
      timeout: props.timeout ?? Duration.seconds(createPlantFunctionSettings.timeoutSeconds),
      role,
      logGroup: this.logGroup,
      loggingFormat: LoggingFormat.JSON,
      applicationLogLevelV2: ApplicationLogLevel.INFO,
      // INFO keeps the platform REPORT line, whose init duration the dashboard's cold-start widget reads.
      systemLogLevelV2: SystemLogLevel.INFO,
      tracing: Tracing.ACTIVE,
      description: 'POST /plants: verify the bearer token, validate, write the plant',
      environment: {
        [envNames.tableName]: table.tableName,
        [envNames.issuer]: tokenIssuer.issuer,
        [envNames.jwksUrl]: tokenIssuer.jwksUrl ?? defaultJwksUrl(tokenIssuer.issuer),
        [envNames.audiences]: tokenIssuer.audiences.join(','),
        [envNames.scope]: tokenIssuer.scope ?? 'plants/write',
        NODE_OPTIONS: nodeOptions,
      },
      currentVersionOptions: {
        // Old versions are kept, when a new one replaces them and when the template drops them:
        // rolling back by hand moves the alias to one of them.
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
    // currentVersion publishes a version with each deploy that changes the function's code or
    // configuration, and none with a deploy that changes neither.
    this.alias = new Alias(this, 'LiveAlias', {
      aliasName: liveAliasName,
      version: fn.currentVersion,
    });

    this.logGroup.grantWrite(role);
    // Exactly the two calls the handler's store makes, on this one table (it has no indexes, so
    // the table ARN alone); not grantReadWriteData, which would also allow scans, deletes and
    // batch writes.
    table.grant(role, 'dynamodb:PutItem', 'dynamodb:GetItem');

    Validations.of(role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'X-Ray PutTraceSegments and PutTelemetryRecords support no resource-level permissions, so ' +
        'active tracing needs Resource "*"; they are the only actions granted on "*".',
    });
  }
}

/**
 * The references in the function's environment that CloudFormation resolves at deploy time
 * (`Ref`, `Fn::GetAtt`), each once, joined by spaces: the table's name, the pool's issuer URL, the
 * client id, the resource server. Each reference once, not each variable, because a version
 * description holds at most 256 characters (docs/decisions/0031-deploy-time-config-in-the-version.md).
 */
function deployTimeValues(cfnFunction: CfnFunction): string {
  const environment: unknown = Stack.of(cfnFunction).resolve(cfnFunction.environment);
  const found = new Map<string, unknown>();
  const collect = (value: unknown): void => {
    if (typeof value !== 'object' || value === null) return;
    if ('Ref' in value || 'Fn::GetAtt' in value) {
      found.set(JSON.stringify(value), value);
      return;
    }
    for (const each of Object.values(value)) collect(each);
  };
  collect(environment);
  return Fn.join(
    ' ',
    [...found.values()].map((value) => new Intrinsic(value).toString()),
  );
}

/** Auth0's issuer ends in `/`; the well-known path must not be appended after a second one. */
function defaultJwksUrl(issuer: string): string {
  return `${issuer.replace(/\/+$/, '')}/.well-known/jwks.json`;
}
