import { ArnFormat, Duration, Stack, Validations } from 'aws-cdk-lib';
import type { IHttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import type { AlarmProps, IAlarm, IMetric } from 'aws-cdk-lib/aws-cloudwatch';
import {
  Alarm,
  ComparisonOperator,
  MathExpression,
  Metric,
  Stats,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { FilterPattern, MetricFilter } from 'aws-cdk-lib/aws-logs';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import { metricsNamespace } from '../../functions/http/request-metrics.ts';
import { type Operation, routeKey } from '../../functions/operations.ts';
import { serverFailureCounters } from '../operation-outcomes.ts';
import { type OperationFunction, operationConstructId } from './operation-function.ts';
import { tableThrottledRequests } from './table-metrics.ts';

export type AlarmedOperation = Pick<
  OperationFunction,
  'operation' | 'function' | 'alias' | 'logGroup'
>;

export interface OperationalAlarmsProps {
  readonly operations: readonly AlarmedOperation[];
  readonly api: IHttpApi;
  readonly table: ITable;
  /** @default - no topic; the alarms show in the CloudWatch console only */
  readonly alarmEmail?: string;
}

const period = Duration.minutes(5);
/** Short enough that a rollback alarm can fire inside a 5-minute canary, twice over. */
const deploymentPeriod = Duration.minutes(1);
const serverErrorRatePercent = 5;

type AlarmShape = Pick<
  AlarmProps,
  'threshold' | 'comparisonOperator' | 'evaluationPeriods' | 'datapointsToAlarm'
>;
const anyOccurrence: AlarmShape = {
  threshold: 1,
  comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
  evaluationPeriods: 1,
  datapointsToAlarm: 1,
};
/** Two bad periods of three: a single unlucky one at low traffic does not fire. */
const twoOfThreeAbove = (threshold: number): AlarmShape => ({
  threshold,
  comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
  evaluationPeriods: 3,
  datapointsToAlarm: 2,
});

/** What should wake an operator, and what rolls a deployment back; none fires on silence. */
export class OperationalAlarms extends Construct {
  readonly alarms: readonly IAlarm[];
  readonly topic?: ITopic;
  readonly #rollbackAlarms = new Map<string, readonly IAlarm[]>();

  constructor(scope: Construct, id: string, props: OperationalAlarmsProps) {
    super(scope, id);
    const { api, table } = props;

    const alarms: Alarm[] = [];
    const alarm = (
      where: Construct,
      alarmId: string,
      metric: IMetric,
      shape: AlarmShape,
      alarmDescription: string,
      alarmName?: string,
    ): Alarm => {
      const created = new Alarm(where, alarmId, {
        metric,
        ...shape,
        alarmName,
        treatMissingData: TreatMissingData.NOT_BREACHING,
        alarmDescription,
      });
      alarms.push(created);
      return created;
    };

    // A rate, not a count, so that the threshold means the same at 1 and at 1000 requests/s.
    const serverErrorRate = new MathExpression({
      expression: 'IF(requests > 0, 100 * errors / requests, 0)',
      usingMetrics: {
        errors: api.metricServerError({ period, statistic: Stats.SUM }),
        requests: api.metricCount({ period, statistic: Stats.SUM }),
      },
      period,
      label: 'API 5xx rate (%)',
    });
    alarm(
      this,
      'Api5xxRate',
      serverErrorRate,
      twoOfThreeAbove(serverErrorRatePercent),
      'More than the allowed share of all answers of the API were 5xx (503 = store or issuer ' +
        'unavailable, 500 = bug or a failed integration) in two of the last three 5-minute ' +
        "periods. Each operation's own 5xx rate has an alarm of its own.",
    );

    alarm(
      this,
      'ApiP99Latency',
      api.metricLatency({ period, statistic: Stats.p(99) }),
      twoOfThreeAbove(Duration.seconds(2).toMilliseconds()),
      'p99 latency of the API stayed high in two of the last three 5-minute periods. ' +
        'Compare with the function duration and the DynamoDB latency.',
    );

    const calls = [
      ...new Set(props.operations.flatMap(({ operation }) => operation.dynamodbActions)),
    ];
    alarm(
      this,
      'TableThrottledRequests',
      tableThrottledRequests(table, period, calls),
      anyOccurrence,
      `DynamoDB throttled a call on the plants table (${calls.join(', ')}; hot key or ` +
        'account limit); the function retries, then answers 503.',
    );

    const stackName = Stack.of(this).stackName;
    for (const target of props.operations) {
      const { operation, function: fn, alias } = target;
      const each = new Construct(this, operationConstructId(operation));
      const route = routeKey(operation);

      // The handler answers every expected failure, so a Lambda error means a crash.
      alarm(
        each,
        'FunctionErrors',
        fn.metricErrors({ period, statistic: Stats.SUM }),
        anyOccurrence,
        `${operation.name} (${route}) threw, timed out or failed to start. Read its log group for the request id.`,
      );
      alarm(
        each,
        'FunctionThrottles',
        fn.metricThrottles({ period, statistic: Stats.SUM }),
        anyOccurrence,
        `${operation.name} (${route}) hit its concurrency limit; clients got 5xx. Check the account concurrency.`,
      );

      // A rarely called operation failing every time would vanish in the API-wide rate.
      const failures = Object.fromEntries(
        serverFailureCounters.map((counter) => [
          counter.toLowerCase(),
          new Metric({
            namespace: metricsNamespace,
            metricName: counter,
            dimensionsMap: { Service: fn.functionName },
            statistic: Stats.SUM,
            period,
          }),
        ]),
      );
      const failureSum = Object.keys(failures)
        .map((key) => `FILL(${key}, 0)`)
        .join(' + ');
      alarm(
        each,
        'ServerErrorRate',
        new MathExpression({
          expression: `IF(invocations > 0, 100 * (${failureSum}) / invocations, 0)`,
          usingMetrics: {
            ...failures,
            invocations: fn.metricInvocations({ period, statistic: Stats.SUM }),
          },
          period,
          label: `${operation.name} 5xx rate (%)`,
        }),
        twoOfThreeAbove(serverErrorRatePercent),
        `More than the allowed share of ${route} answers were 5xx (${serverFailureCounters.join(', ')}) ` +
          'in two of the last three 5-minute periods.',
      );

      // Fresh per version: docs/decisions/0030-rollback-alarms-judge-the-new-version.md
      const version = alias.version.version;
      const alarmName = (name: string) => `${stackName}-${name}-${operation.name}-${version}`;

      // Lambda counts the invocations of a weighted alias by ExecutedVersion.
      const deployedVersionErrors = new Metric({
        namespace: 'AWS/Lambda',
        metricName: 'Errors',
        dimensionsMap: {
          FunctionName: fn.functionName,
          Resource: `${fn.functionName}:${alias.aliasName}`,
          ExecutedVersion: version,
        },
        statistic: Stats.SUM,
        period: deploymentPeriod,
      });
      const onVersionErrors = alarm(
        each,
        'DeployedVersionErrors',
        deployedVersionErrors,
        anyOccurrence,
        `The ${operation.name} version being deployed threw, timed out or failed to start. During ` +
          'a traffic shift, CodeDeploy rolls its live alias back to the previous version.',
        alarmName('DeployedVersionErrors'),
      );

      // A 500 is no Lambda error; only `error` counts, as every version gets 503s alike.
      const request = FilterPattern.stringValue('$.message', '=', 'request');
      const filters: MetricFilter[] = [];
      const countByVersion = (metricName: string, pattern = request) => {
        const filter = new MetricFilter(each, metricName, {
          logGroup: target.logGroup,
          filterPattern: pattern,
          metricNamespace: metricsNamespace,
          metricName,
          metricValue: '1',
          dimensions: { Service: '$.Service', FunctionVersion: '$.functionVersion' },
        });
        filters.push(filter);
        return filter.metric({
          dimensionsMap: { Service: fn.functionName, FunctionVersion: version },
          statistic: Stats.SUM,
          period: deploymentPeriod,
        });
      };
      const failureRate = new MathExpression({
        expression: 'IF(requests > 0, 100 * FILL(failures, 0) / requests, 0)',
        usingMetrics: {
          requests: countByVersion('VersionRequests'),
          failures: countByVersion(
            'VersionFailures',
            FilterPattern.all(request, FilterPattern.stringValue('$.outcome', '=', 'error')),
          ),
        },
        period: deploymentPeriod,
        label: 'Deployed version 500 rate (%)',
      });
      const onServerErrors = alarm(
        each,
        'DeployedVersionFailureRate',
        failureRate,
        twoOfThreeAbove(serverErrorRatePercent),
        `More than the allowed share of the answers of the ${operation.name} version being ` +
          'deployed were 500s in two of the last three minutes. During a traffic shift, CodeDeploy ' +
          'rolls its live alias back to the previous version.',
        alarmName('DeployedVersionFailureRate'),
      );
      // Counting from the first line the new version writes, the pre-traffic check's included.
      onServerErrors.node.addDependency(...filters);
      this.#rollbackAlarms.set(operation.name, [onVersionErrors, onServerErrors]);
    }

    this.alarms = alarms;
    if (props.alarmEmail === undefined) return;

    const topic = new Topic(this, 'AlarmTopic', {
      displayName: 'Plant Store alarms',
      enforceSSL: true,
    });
    // enforceSSL's policy replaces SNS's default one: without this, nothing may publish.
    const stack = Stack.of(this);
    topic.addToResourcePolicy(
      new PolicyStatement({
        sid: 'AllowCloudWatchAlarmsOfThisAccount',
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [topic.topicArn],
        conditions: {
          StringEquals: { 'aws:SourceAccount': stack.account },
          ArnLike: {
            'aws:SourceArn': stack.formatArn({
              service: 'cloudwatch',
              resource: 'alarm',
              resourceName: '*',
              arnFormat: ArnFormat.COLON_RESOURCE_NAME,
            }),
          },
        },
      }),
    );
    topic.addSubscription(new EmailSubscription(props.alarmEmail));
    // Rollback alarms are new with every version: their OK would e-mail every release.
    const rollback = new Set<IAlarm>([...this.#rollbackAlarms.values()].flat());
    notifyOnChange(
      alarms.filter((each) => !rollback.has(each)),
      topic,
    );
    const onAlarm = new SnsAction(topic);
    for (const each of alarms) if (rollback.has(each)) each.addAlarmAction(onAlarm);
    this.topic = topic;

    Validations.of(topic).acknowledge({
      id: 'AwsSolutions-SNS2',
      reason:
        'Alarm notifications carry alarm names, states and metric values, no customer data. ' +
        'CloudWatch cannot publish to a topic encrypted with the AWS-managed aws/sns key, and ' +
        'a customer-managed key would add cost and a key policy to maintain for nothing ' +
        'secret. Publishing requires TLS (enforceSSL).',
    });
  }

  rollbackAlarmsOf(operation: Pick<Operation, 'name'>): readonly IAlarm[] {
    const found = this.#rollbackAlarms.get(operation.name);
    if (found === undefined) throw new Error(`no alarms for the operation ${operation.name}`);
    return found;
  }
}

export function notifyOnChange(alarms: readonly Alarm[], topic: ITopic): void {
  const action = new SnsAction(topic);
  for (const alarm of alarms) {
    alarm.addAlarmAction(action);
    alarm.addOkAction(action);
  }
}
