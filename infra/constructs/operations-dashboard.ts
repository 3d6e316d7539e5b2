import { Duration } from 'aws-cdk-lib';
import type { IHttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  Dashboard,
  GraphWidget,
  type IMetric,
  type IWidget,
  LogQueryWidget,
  MathExpression,
  Metric,
  Stats,
  TextWidget,
} from 'aws-cdk-lib/aws-cloudwatch';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import {
  deliveryCounters,
  deliveryLatencyMetric,
} from '../../functions/deliver-webhook/delivery-metrics.ts';
import { failureCounters } from '../../functions/failures.ts';
import { metricsNamespace } from '../../functions/http/request-metrics.ts';
import { routeKey } from '../../functions/operations.ts';
import { ownCounters } from '../operation-outcomes.ts';
import type { NewPlantWebhook } from './new-plant-webhook.ts';
import type { OperationFunction } from './operation-function.ts';
import { tableThrottledRequests } from './table-metrics.ts';

export type DashboardOperation = Pick<OperationFunction, 'operation' | 'function' | 'logGroup'>;
export type DashboardWebhook = Pick<NewPlantWebhook, 'function' | 'queue' | 'deadLetterQueue'>;

export interface OperationsDashboardProps {
  readonly operations: readonly DashboardOperation[];
  readonly api: IHttpApi;
  readonly table: ITable;
  readonly webhook?: DashboardWebhook;
}

const period = Duration.minutes(5);
const graph = (title: string, width: number, left: IMetric[], right: IMetric[] = []) =>
  new GraphWidget({ title, left, right, width, height: 6 });

/** One dashboard that answers "is it healthy, and if not, where" (docs/operations.md). */
export class OperationsDashboard extends Construct {
  readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: OperationsDashboardProps) {
    super(scope, id);
    const { api, table } = props;
    const calls = [
      ...new Set(props.operations.flatMap(({ operation }) => operation.dynamodbActions)),
    ];
    const routes = props.operations.map(({ operation }) => `\`${routeKey(operation)}\``).join(', ');

    this.dashboard = new Dashboard(this, 'Dashboard', {
      defaultInterval: Duration.hours(3),
      widgets: [
        [
          new TextWidget({
            markdown:
              `# Plant Store API\n${routes}: API Gateway HTTP API → one Lambda function per ` +
              'operation → DynamoDB. A 5xx or an alarm: find the `apiRequestId` in the access ' +
              "log, then the same id in that operation's function log (`requestId`, `traceId`).",
            width: 24,
            height: 2,
          }),
        ],
        [
          graph('API requests, 4xx and 5xx', 8, [
            api.metricCount({ period, statistic: Stats.SUM, label: 'requests' }),
            api.metricClientError({ period, statistic: Stats.SUM, label: '4xx' }),
            api.metricServerError({ period, statistic: Stats.SUM, label: '5xx' }),
          ]),
          graph('API latency', 8, [
            api.metricLatency({ period, statistic: Stats.p(50), label: 'p50' }),
            api.metricLatency({ period, statistic: Stats.p(99), label: 'p99' }),
            api.metricIntegrationLatency({
              period,
              statistic: Stats.p(99),
              label: 'integration p99',
            }),
          ]),
          graph(
            'Table capacity and throttles',
            8,
            [
              table.metricConsumedWriteCapacityUnits({ period, label: 'consumed WCU' }),
              table.metricConsumedReadCapacityUnits({ period, label: 'consumed RCU' }),
            ],
            [tableThrottledRequests(table, period, calls)],
          ),
        ],
        [
          new LogQueryWidget({
            title: 'Cold starts by function (init duration, ms)',
            logGroupNames: props.operations.map(({ logGroup }) => logGroup.logGroupName),
            queryLines: [
              'filter type = "platform.report" and ispresent(record.metrics.initDurationMs)',
              'stats count() as coldStarts, avg(record.metrics.initDurationMs) as avgInitMs, max(record.metrics.initDurationMs) as maxInitMs by bin(5m), @log',
            ],
            width: 24,
            height: 6,
          }),
        ],
        ...props.operations.map(operationRow),
        ...(props.webhook === undefined ? [] : [webhookRow(props.webhook)]),
      ],
    });
  }
}

function webhookRow({ function: fn, queue, deadLetterQueue }: DashboardWebhook): IWidget[] {
  return [
    graph(
      'New-plant webhook: delivered, retried, dead-lettered',
      6,
      Object.entries(deliveryCounters).map(([outcome, counter]) =>
        handlerMetric(fn, counter, Stats.SUM, outcome),
      ),
    ),
    graph('New-plant webhook: latency from the write to the 2xx', 6, [
      handlerMetric(fn, deliveryLatencyMetric, Stats.p(50), 'p50'),
      handlerMetric(fn, deliveryLatencyMetric, Stats.p(99), 'p99'),
    ]),
    graph(
      'New-plant webhook: waiting, and dead-lettered',
      6,
      [
        queue.metricApproximateNumberOfMessagesVisible({ period, label: 'due now' }),
        queue.metricApproximateNumberOfMessagesNotVisible({ period, label: 'held back' }),
        deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period, label: 'in the DLQ' }),
      ],
      [queue.metricApproximateAgeOfOldestMessage({ period, label: 'oldest (s)' })],
    ),
    graph(
      'New-plant webhook: deliverer invocations and errors',
      6,
      [fn.metricInvocations({ period, statistic: Stats.SUM, label: 'invocations' })],
      [fn.metricErrors({ period, statistic: Stats.SUM, label: 'errors' })],
    ),
  ];
}

function operationRow({ operation, function: fn }: DashboardOperation): IWidget[] {
  const route = routeKey(operation);
  const app = (metricName: string, statistic?: string) => handlerMetric(fn, metricName, statistic);
  return [
    graph(
      `${route}: invocations, errors and throttles`,
      6,
      [fn.metricInvocations({ period, statistic: Stats.SUM, label: 'invocations' })],
      [
        fn.metricErrors({ period, statistic: Stats.SUM, label: 'errors' }),
        fn.metricThrottles({ period, statistic: Stats.SUM, label: 'throttles' }),
      ],
    ),
    graph(`${route}: function duration`, 6, [
      fn.metricDuration({ period, statistic: Stats.p(50), label: 'p50' }),
      fn.metricDuration({ period, statistic: Stats.p(99), label: 'p99' }),
    ]),
    graph(
      `${route}: outcomes, and refused requests`,
      6,
      ownCounters(operation).map((counter) => app(counter)),
      [
        new MathExpression({
          expression: `SEARCH('{${metricsNamespace},Service,AuthFailureReason} MetricName="${failureCounters.unauthorized}" Service="${fn.functionName}"', 'Sum', 300)`,
          label: 'auth failures:',
          period,
        }),
        app(failureCounters.invalid),
      ],
    ),
    graph(
      `${route}: store latency, and what was unavailable`,
      6,
      [app('StoreLatency', Stats.p(50)), app('StoreLatency', Stats.p(99))],
      [
        ...new Set([
          failureCounters.unavailable,
          failureCounters.issuer_unavailable,
          failureCounters.error,
        ]),
      ].map((counter) => app(counter)),
    ),
  ];
}

function handlerMetric(
  fn: IFunction,
  metricName: string,
  statistic: string = Stats.SUM,
  label?: string,
): Metric {
  return new Metric({
    namespace: metricsNamespace,
    metricName,
    dimensionsMap: { Service: fn.functionName },
    statistic,
    period,
    label,
  });
}
