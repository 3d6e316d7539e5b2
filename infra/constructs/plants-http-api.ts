import { CfnOutput, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import type { IHttpApi, IHttpStage } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  HttpApi,
  HttpMethod,
  HttpStage,
  LogGroupLogDestination,
  PayloadFormatVersion,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { ILogGroup } from 'aws-cdk-lib/aws-logs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { Operation } from '../../functions/operations.ts';
import { operationConstructId } from './operation-function.ts';
import { stackInstanceId } from './stack-instance-id.ts';

/** One route: the operation's method and path, answered by its function. */
export interface PlantsRoute {
  readonly operation: Operation;
  /**
   * Answers the route with a payload 2.0 proxy integration: the function's `live` alias, so that
   * CodeDeploy decides which version serves each request.
   */
  readonly handler: IFunction;
}

export interface PlantsHttpApiProps {
  /** A route per operation; any other method and path gets API Gateway's own 404. */
  readonly routes: readonly PlantsRoute[];
  /**
   * Steady-state requests per second the stage admits before answering 429.
   * @default 100
   */
  readonly throttlingRateLimit?: number;
  /**
   * Requests the stage admits in a burst above the steady rate.
   * @default 200
   */
  readonly throttlingBurstLimit?: number;
  /** @default RetentionDays.ONE_MONTH */
  readonly accessLogRetention?: RetentionDays;
}

/**
 * One JSON object per request, with the fields an operator greps for: the request id ties the line
 * to the function's logs, `integrationError` explains a 5xx the function never saw.
 */
export const accessLogFields = {
  requestId: '$context.requestId',
  ip: '$context.identity.sourceIp',
  requestTime: '$context.requestTime',
  httpMethod: '$context.httpMethod',
  routeKey: '$context.routeKey',
  status: '$context.status',
  protocol: '$context.protocol',
  responseLength: '$context.responseLength',
  responseLatency: '$context.responseLatency',
  integrationError: '$context.integrationErrorMessage',
  integrationLatency: '$context.integrationLatency',
} as const;

/** The HTTP API with a route per operation, a throttled `$default` stage and JSON access logs. */
export class PlantsHttpApi extends Construct {
  readonly api: IHttpApi;
  readonly stage: IHttpStage;
  readonly accessLogGroup: ILogGroup;
  /** The stage's base URL, ending in `/`; the routes are at `${url}plants`. */
  readonly url: string;

  constructor(scope: Construct, id: string, props: PlantsHttpApiProps) {
    super(scope, id);

    // The implicit default stage cannot take throttling or access logs, so the stage is explicit.
    const api = new HttpApi(this, 'Api', {
      // Without a name every stage's API is called "Api" in the console and the CLI's list. API
      // names need not be unique, so the stack's name (`PlantStore-<stage>`) is safe to use.
      apiName: Stack.of(this).stackName,
      description: 'Plant Store API',
      createDefaultStage: false,
    });
    this.api = api;

    // Each integration is named after its function's construct: the route and the permission
    // that lets API Gateway invoke the alias for it keep their logical ids as routes are added.
    const routes = props.routes.flatMap(({ operation, handler }) =>
      api.addRoutes({
        path: operation.path,
        methods: [HttpMethod[operation.method]],
        integration: new HttpLambdaIntegration(operationConstructId(operation), handler, {
          payloadFormatVersion: PayloadFormatVersion.VERSION_2_0,
        }),
      }),
    );

    this.accessLogGroup = new LogGroup(this, 'AccessLogs', {
      // A physical name on purpose. API Gateway delivers access logs through CloudWatch Logs' log
      // delivery, which adds every group outside `/aws/vendedlogs/` to one account-wide resource
      // policy of at most 5,120 characters; on a busy account that fails the deploy with
      // "Insufficient permissions to enable logging". The group outlives the stack (retained,
      // except after a failed first deploy, which leaves nothing to read), so the name carries
      // the stack instance id: a redeploy after `cdk destroy` gets a new group instead of
      // colliding with the old one.
      logGroupName: `/aws/vendedlogs/${Stack.of(this).stackName}/http-api-access-logs/${stackInstanceId(this)}`,
      retention: props.accessLogRetention ?? RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
    });

    const stage = new HttpStage(this, 'DefaultStage', {
      httpApi: api,
      stageName: '$default',
      autoDeploy: true,
      throttle: {
        rateLimit: props.throttlingRateLimit ?? 100,
        burstLimit: props.throttlingBurstLimit ?? 200,
      },
      accessLogSettings: {
        destination: new LogGroupLogDestination(this.accessLogGroup),
        format: AccessLogFormat.custom(JSON.stringify(accessLogFields)),
      },
    });
    this.stage = stage;
    this.url = stage.url;
    // The stack's output, by the key the deploy workflow and docs/deploy.md read.
    new CfnOutput(this, 'ApiUrl', {
      description: 'Base URL of the API; the plants are at <ApiUrl>plants',
      value: this.url,
    }).overrideLogicalId('ApiUrl');

    for (const route of routes) {
      Validations.of(route).acknowledge({
        id: 'AwsSolutions-APIG4',
        reason:
          'The function verifies the bearer JWT itself (signature, issuer, expiry, audience, scope) ' +
          'before it reads the body, so that it can answer the documented {error, message} bodies ' +
          'with RFC 6750 WWW-Authenticate challenges; an API Gateway JWT authorizer answers ' +
          '{"message":"Unauthorized"} instead and would break that contract. Stage throttling ' +
          'bounds the cost of rejected calls.',
      });
    }
  }
}
