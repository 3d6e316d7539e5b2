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
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { Operation } from '../../functions/operations.ts';
import { operationConstructId } from './operation-function.ts';
import { stackInstanceId } from './stack-instance-id.ts';

export interface PlantsRoute {
  readonly operation: Operation;
  /** The function's `live` alias, so that CodeDeploy decides which version serves each request. */
  readonly handler: IFunction;
}

export interface PlantsHttpApiProps {
  /** Any other method and path gets API Gateway's own 404. */
  readonly routes: readonly PlantsRoute[];
  /** Steady-state requests per second before a 429. @default 100 */
  readonly throttlingRateLimit?: number;
  /** @default 200 */
  readonly throttlingBurstLimit?: number;
}

/** The request id ties a line to the function's logs; `integrationError` explains a 5xx it never saw. */
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

  constructor(scope: Construct, id: string, props: PlantsHttpApiProps) {
    super(scope, id);

    // The implicit default stage cannot take throttling or access logs, so the stage is explicit.
    const api = new HttpApi(this, 'Api', {
      // Else every stage's API is called "Api" in the console; API names need not be unique.
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

    const accessLogGroup = new LogGroup(this, 'AccessLogs', {
      // Under `/aws/vendedlogs/` on purpose: log delivery adds every other group to one
      // account-wide resource policy of limited size, which on a busy account fails the deploy
      // ("Insufficient permissions to enable logging"). The group outlives the stack, so the name
      // carries the stack instance id: a redeploy after `cdk destroy` does not collide with it.
      logGroupName: `/aws/vendedlogs/${Stack.of(this).stackName}/http-api-access-logs/${stackInstanceId(this)}`,
      retention: RetentionDays.ONE_MONTH,
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
        destination: new LogGroupLogDestination(accessLogGroup),
        format: AccessLogFormat.custom(JSON.stringify(accessLogFields)),
      },
    });
    this.stage = stage;
    // By the output key the deploy workflow and docs/deploy.md read.
    new CfnOutput(this, 'ApiUrl', {
      description: 'Base URL of the API; the plants are at <ApiUrl>plants',
      value: stage.url,
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
