import { Duration } from 'aws-cdk-lib';
import type { IHttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  Dashboard,
  GraphWidget,
  type IMetric,
  LogQueryWidget,
  MathExpression,
  Metric,
  Stats,
  TextWidget,
} from 'aws-cdk-lib/aws-cloudwatch';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { ILogGroup } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { tableThrottledRequests } from './table-metrics.ts';

export interface OperationsDashboardProps {
  readonly function: IFunction;
  /** The function's log group: its platform REPORT lines carry the cold starts' init duration. */
  readonly functionLogGroup: ILogGroup;
  readonly api: IHttpApi;
  readonly table: ITable;
}

/** The handler's Embedded Metric Format namespace (functions/http/request-metrics.ts). */
const appNamespace = 'PlantStore';
const period = Duration.minutes(5);
const width = 8;

/**
 * One CloudWatch dashboard that answers "is it healthy, and if not, where": the API as clients
 * see it, the function, the table, and what the handler counted (creates, replays, conflicts,
 * auth failures by reason, validation failures, store latency).
 */
export class OperationsDashboard extends Construct {
  readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: OperationsDashboardProps) {
    super(scope, id);
    const { function: fn, api, table } = props;
    // The handler names its `Service` dimension after the function, so stages never mix.
    const app = (metricName: string, statistic: string = Stats.SUM) =>
      new Metric({
        namespace: appNamespace,
        metricName,
        dimensionsMap: { Service: fn.functionName },
        statistic,
        period,
      });
    const graph = (title: string, left: IMetric[], right: IMetric[] = []) =>
      new GraphWidget({ title, left, right, width, height: 6 });

    this.dashboard = new Dashboard(this, 'Dashboard', {
      defaultInterval: Duration.hours(3),
      widgets: [
        [
          new TextWidget({
            markdown:
              '# Plant Store API\n`POST /plants`: API Gateway HTTP API → Lambda → DynamoDB. ' +
              'A 5xx or an alarm: find the `apiRequestId` in the access log, then the same id in ' +
              'the function log (`requestId`, `traceId`).',
            width: 24,
            height: 2,
          }),
        ],
        [
          graph('API requests, 4xx and 5xx', [
            api.metricCount({ period, statistic: Stats.SUM, label: 'requests' }),
            api.metricClientError({ period, statistic: Stats.SUM, label: '4xx' }),
            api.metricServerError({ period, statistic: Stats.SUM, label: '5xx' }),
          ]),
          graph('API latency', [
            api.metricLatency({ period, statistic: Stats.p(50), label: 'p50' }),
            api.metricLatency({ period, statistic: Stats.p(99), label: 'p99' }),
            api.metricIntegrationLatency({
              period,
              statistic: Stats.p(99),
              label: 'integration p99',
            }),
          ]),
          graph('Function duration', [
            fn.metricDuration({ period, statistic: Stats.p(50), label: 'p50' }),
            fn.metricDuration({ period, statistic: Stats.p(99), label: 'p99' }),
          ]),
        ],
        [
          graph(
            'Function invocations, errors and throttles',
            [fn.metricInvocations({ period, statistic: Stats.SUM, label: 'invocations' })],
            [
              fn.metricErrors({ period, statistic: Stats.SUM, label: 'errors' }),
              fn.metricThrottles({ period, statistic: Stats.SUM, label: 'throttles' }),
            ],
          ),
          new LogQueryWidget({
            title: 'Cold starts (init duration, ms)',
            logGroupNames: [props.functionLogGroup.logGroupName],
            queryLines: [
              'filter type = "platform.report" and ispresent(record.metrics.initDurationMs)',
              'stats count() as coldStarts, avg(record.metrics.initDurationMs) as avgInitMs, max(record.metrics.initDurationMs) as maxInitMs by bin(5m)',
            ],
            width,
            height: 6,
          }),
          graph(
            'Table capacity and throttles',
            [
              table.metricConsumedWriteCapacityUnits({ period, label: 'consumed WCU' }),
              table.metricConsumedReadCapacityUnits({ period, label: 'consumed RCU' }),
            ],
            [tableThrottledRequests(table, period)],
          ),
        ],
        [
          graph('Creates', [app('PlantsCreated'), app('CreatesReplayed'), app('CreateConflicts')]),
          graph('Refused requests', [
            new MathExpression({
              expression: `SEARCH('{${appNamespace},Service,AuthFailureReason} MetricName="AuthFailures" Service="${fn.functionName}"', 'Sum', 300)`,
              label: 'auth failures:',
              period,
            }),
            app('ValidationFailures'),
          ]),
          graph(
            'Store latency, and what was unavailable',
            [app('StoreLatency', Stats.p(50)), app('StoreLatency', Stats.p(99))],
            [app('StoreUnavailable'), app('IssuerUnavailable'), app('Errors')],
          ),
        ],
      ],
    });
  }
}
