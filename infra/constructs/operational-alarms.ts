import { ArnFormat, Duration, Stack, Validations } from 'aws-cdk-lib';
import type { IHttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import type { IAlarm, IMetric } from 'aws-cdk-lib/aws-cloudwatch';
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
import type { IAlias, IFunction } from 'aws-cdk-lib/aws-lambda';
import type { ILogGroup } from 'aws-cdk-lib/aws-logs';
import { FilterPattern, MetricFilter } from 'aws-cdk-lib/aws-logs';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import { metricsNamespace } from '../../functions/http/request-metrics.ts';
import { type Operation, routeKey } from '../../functions/operations.ts';
import { serverFailureCounters } from '../operation-outcomes.ts';
import { operationConstructId } from './operation-function.ts';
import { tableThrottledRequests } from './table-metrics.ts';

/** An operation's function as the alarms watch it (an `OperationFunction`). */
export interface AlarmedOperation {
  readonly operation: Operation;
  readonly function: IFunction;
  /**
   * The alias the API invokes, pointing at the version this deploy publishes (which a traffic
   * shift moves it to): the rollback alarms watch that version's own errors.
   */
  readonly alias: IAlias;
  /** Where the function writes its request lines, which carry the version that answered. */
  readonly logGroup: ILogGroup;
}

export interface OperationalAlarmsProps {
  /** Each operation's function: its own paging alarms, and its own rollback alarms. */
  readonly operations: readonly AlarmedOperation[];
  readonly api: IHttpApi;
  readonly table: ITable;
  /**
   * Subscribe this address to an SNS topic that every alarm notifies, on ALARM and on OK.
   * @default - no topic; the alarms show in the CloudWatch console only
   */
  readonly alarmEmail?: string;
  /**
   * Alarm when more than this percentage of requests end in a 5xx.
   * @default 5
   */
  readonly serverErrorRatePercent?: number;
  /**
   * Alarm when the API's p99 latency stays above this.
   * @default Duration.seconds(2)
   */
  readonly p99LatencyThreshold?: Duration;
}

const period = Duration.minutes(5);
/** Short enough that a rollback alarm can fire inside a 5-minute canary, twice over. */
const deploymentPeriod = Duration.minutes(1);

/**
 * Counted from the function's request lines (functions/http/access-log.ts) by metric filters, per
 * function (`Service`) and version (`FunctionVersion`): what each version itself answered.
 */
export const versionMetrics = {
  requests: 'VersionRequests',
  failures: 'VersionFailures',
  dimensions: { Service: '$.Service', FunctionVersion: '$.functionVersion' },
} as const;

/**
 * The alarms that should wake an operator: any operation's function failing, answering 5xx or
 * throttled; clients getting 5xx or slow answers from the API; DynamoDB refusing work. And, per
 * operation on 1-minute periods, the two rollback alarms on the version being deployed
 * (`rollbackAlarmsOf`), which let CodeDeploy roll that function's traffic shift back, and no other
 * function's. Each fires on its first bad datapoint or on two of three, and none fires on silence:
 * an idle API has no datapoints, and that is not an incident.
 */
export class OperationalAlarms extends Construct {
  /**
   * Every alarm, the rollback alarms included; with alarmEmail, each notifies the topic of its
   * ALARM, and all but the rollback alarms of their OK too.
   */
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
      options: AlarmShape,
    ): Alarm => {
      const created = new Alarm(where, alarmId, {
        metric,
        threshold: options.threshold,
        comparisonOperator: options.comparisonOperator,
        alarmName: options.alarmName,
        evaluationPeriods: options.evaluationPeriods ?? 1,
        datapointsToAlarm: options.datapointsToAlarm ?? 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
        alarmDescription: options.description,
      });
      alarms.push(created);
      return created;
    };
    const serverErrorRatePercent = props.serverErrorRatePercent ?? 5;

    // A rate, not a count, so that the threshold means the same at 1 and at 1000 requests/s. The
    // gateway's own view: it also counts a 5xx no function answered (a failed integration).
    const serverErrorRate = new MathExpression({
      expression: 'IF(requests > 0, 100 * errors / requests, 0)',
      usingMetrics: {
        errors: api.metricServerError({ period, statistic: Stats.SUM }),
        requests: api.metricCount({ period, statistic: Stats.SUM }),
      },
      period,
      label: 'API 5xx rate (%)',
    });
    alarm(this, 'Api5xxRate', serverErrorRate, {
      threshold: serverErrorRatePercent,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 3,
      datapointsToAlarm: 2,
      description:
        'More than the allowed share of all answers of the API were 5xx (503 = store or issuer ' +
        'unavailable, 500 = bug or a failed integration) in two of the last three 5-minute ' +
        "periods. Each operation's own 5xx rate has an alarm of its own.",
    });

    alarm(this, 'ApiP99Latency', api.metricLatency({ period, statistic: Stats.p(99) }), {
      threshold: (props.p99LatencyThreshold ?? Duration.seconds(2)).toMilliseconds(),
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 3,
      datapointsToAlarm: 2,
      description:
        'p99 latency of the API stayed high in two of the last three 5-minute periods. ' +
        'Compare with the function duration and the DynamoDB latency.',
    });

    const calls = [
      ...new Set(props.operations.flatMap(({ operation }) => operation.dynamodbActions)),
    ];
    alarm(this, 'TableThrottledRequests', tableThrottledRequests(table, period, calls), {
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      description:
        `DynamoDB throttled a call on the plants table (${calls.join(', ')}; hot key or ` +
        'account limit); the function retries, then answers 503.',
    });

    const stackName = Stack.of(this).stackName;
    for (const target of props.operations) {
      const { operation, function: fn } = target;
      const each = new Construct(this, operationConstructId(operation));
      const route = routeKey(operation);

      // The handler turns every expected failure into a response, so a Lambda error means a
      // crash, a timeout or a failed cold start: worth a page at the first one.
      alarm(each, 'FunctionErrors', fn.metricErrors({ period, statistic: Stats.SUM }), {
        threshold: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        description: `${operation.name} (${route}) threw, timed out or failed to start. Read its log group for the request id.`,
      });

      alarm(each, 'FunctionThrottles', fn.metricThrottles({ period, statistic: Stats.SUM }), {
        threshold: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        description: `${operation.name} (${route}) hit its concurrency limit; clients got 5xx. Check the account concurrency.`,
      });

      // The operation's own share of 5xx answers, from the counters its request lines carry: a
      // rarely called operation failing every time would vanish in the API-wide rate.
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
        {
          threshold: serverErrorRatePercent,
          comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
          evaluationPeriods: 3,
          datapointsToAlarm: 2,
          description:
            `More than the allowed share of ${route} answers were 5xx (${serverFailureCounters.join(', ')}) ` +
            'in two of the last three 5-minute periods.',
        },
      );

      this.#rollbackAlarms.set(
        operation.name,
        rollbackAlarms(each, target, { alarm, stackName, serverErrorRatePercent }),
      );
    }

    this.alarms = alarms;

    if (props.alarmEmail !== undefined) {
      const topic = new Topic(this, 'AlarmTopic', {
        displayName: 'Plant Store alarms',
        enforceSSL: true,
      });
      // enforceSSL gives the topic a policy of its own, which replaces SNS's default one: without
      // this statement nothing may publish, and the alarms would change state in silence.
      // CloudWatch may publish for this account's alarms in this region, and only for those.
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
      // A rollback alarm is replaced with every version, and each new one goes from no data to
      // OK: its OK would e-mail every release, so it notifies its ALARM only.
      const rollback = new Set<IAlarm>([...this.#rollbackAlarms.values()].flat());
      notifyOnChange(
        alarms.filter((each) => !rollback.has(each)),
        topic,
      );
      notifyOnAlarm(
        alarms.filter((each) => rollback.has(each)),
        topic,
      );
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
  }

  /** The alarms that roll the operation's traffic shift back when they fire during it. */
  rollbackAlarmsOf(operation: Pick<Operation, 'name'>): readonly IAlarm[] {
    const found = this.#rollbackAlarms.get(operation.name);
    if (found === undefined) throw new Error(`no alarms for the operation ${operation.name}`);
    return found;
  }
}

/** Each alarm notifies `topic` when it fires and when it clears. */
export function notifyOnChange(alarms: readonly Alarm[], topic: ITopic): void {
  const action = new SnsAction(topic);
  for (const alarm of alarms) {
    alarm.addAlarmAction(action);
    alarm.addOkAction(action);
  }
}

/** Each alarm notifies `topic` when it fires, and not when it clears. */
export function notifyOnAlarm(alarms: readonly Alarm[], topic: ITopic): void {
  const action = new SnsAction(topic);
  for (const alarm of alarms) alarm.addAlarmAction(action);
}

/**
 * The rollback alarms of one operation's function. The paging alarms need 5 to 15 minutes of
 * data, longer than a canary lasts, so these read 1-minute periods. CodeDeploy watches them only
 * while it shifts that function's traffic, and rolls back when one is in ALARM. Both judge the
 * version being deployed by its own invocations alone, whatever the old version, another
 * operation or a dependency does meanwhile.
 *
 * Each is named for its operation and version. CloudWatch keeps an alarm's state when its
 * definition changes, so an alarm updated in place could start a deployment in last release's
 * ALARM; a new name makes CloudFormation replace it with a fresh one for every version published.
 */
function rollbackAlarms(
  scope: Construct,
  target: AlarmedOperation,
  shared: {
    readonly alarm: (where: Construct, id: string, metric: IMetric, shape: AlarmShape) => Alarm;
    readonly stackName: string;
    readonly serverErrorRatePercent: number;
  },
): IAlarm[] {
  const { operation, function: fn, alias } = target;
  const { alarm } = shared;
  const version = alias.version.version;
  const alarmName = (name: string) => `${shared.stackName}-${name}-${operation.name}-${version}`;

  // Lambda counts the invocations of a weighted alias by ExecutedVersion: a crash, a timeout or
  // a failed cold start of the new version.
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
  const onVersionErrors = alarm(scope, 'DeployedVersionErrors', deployedVersionErrors, {
    alarmName: alarmName('DeployedVersionErrors'),
    threshold: 1,
    comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    description:
      `The ${operation.name} version being deployed threw, timed out or failed to start. During ` +
      'a traffic shift, CodeDeploy rolls its live alias back to the previous version.',
  });

  // The handler turns its own failures into answers, so a version that answers 500 is no Lambda
  // error: its request lines count it. Only the outcome `error` (a 500, a bug) counts, not a 503,
  // which says DynamoDB or the issuer is unavailable to every version alike.
  const request = FilterPattern.stringValue('$.message', '=', 'request');
  const filters: MetricFilter[] = [];
  const countByVersion = (filterId: string, metricName: string, pattern = request) => {
    const filter = new MetricFilter(scope, filterId, {
      logGroup: target.logGroup,
      filterPattern: pattern,
      metricNamespace: metricsNamespace,
      metricName,
      metricValue: '1',
      dimensions: { ...versionMetrics.dimensions },
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
      requests: countByVersion('VersionRequests', versionMetrics.requests),
      failures: countByVersion(
        'VersionFailures',
        versionMetrics.failures,
        FilterPattern.all(request, FilterPattern.stringValue('$.outcome', '=', 'error')),
      ),
    },
    period: deploymentPeriod,
    label: 'Deployed version 500 rate (%)',
  });
  // Two bad minutes of three keep a single unlucky request at low traffic from rolling back.
  const onServerErrors = alarm(scope, 'DeployedVersionFailureRate', failureRate, {
    alarmName: alarmName('DeployedVersionFailureRate'),
    threshold: shared.serverErrorRatePercent,
    comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
    evaluationPeriods: 3,
    datapointsToAlarm: 2,
    description:
      `More than the allowed share of the answers of the ${operation.name} version being ` +
      'deployed were 500s in two of the last three minutes. During a traffic shift, CodeDeploy ' +
      'rolls its live alias back to the previous version.',
  });
  // Counting from the first line the new version writes, the pre-traffic check's included.
  onServerErrors.node.addDependency(...filters);
  return [onVersionErrors, onServerErrors];
}

interface AlarmShape {
  /** @default - a name CloudFormation generates */
  readonly alarmName?: string;
  readonly threshold: number;
  readonly comparisonOperator: ComparisonOperator;
  /** @default 1 */
  readonly evaluationPeriods?: number;
  /** @default 1 */
  readonly datapointsToAlarm?: number;
  readonly description: string;
}
