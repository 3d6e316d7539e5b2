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
import { tableThrottledRequests } from './table-metrics.ts';

export interface OperationalAlarmsProps {
  readonly function: IFunction;
  /**
   * The alias the API invokes, pointing at the version this deploy publishes (which a traffic
   * shift moves it to): the rollback alarms watch that version's own errors.
   */
  readonly alias: IAlias;
  /** Where the function writes its request lines, which carry the version that answered. */
  readonly functionLogGroup: ILogGroup;
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
 * The alarms that should wake an operator: the function failing or throttled, clients getting
 * 5xx or slow answers, DynamoDB refusing work; and, on 1-minute periods, the two `rollbackAlarms`
 * on the version being deployed, which let CodeDeploy roll a traffic shift back. Each fires on its
 * first bad datapoint or on two of three, and none fires on silence: an idle API has no
 * datapoints, and that is not an incident.
 */
export class OperationalAlarms extends Construct {
  /** Every alarm, the rollback alarms included; with alarmEmail, each notifies the topic. */
  readonly alarms: readonly IAlarm[];
  /** The alarms that roll a traffic shift back when they fire during it. */
  readonly rollbackAlarms: readonly IAlarm[];
  readonly topic?: ITopic;

  constructor(scope: Construct, id: string, props: OperationalAlarmsProps) {
    super(scope, id);
    const { function: fn, api, table } = props;

    const alarms: Alarm[] = [];
    const alarm = (alarmId: string, metric: IMetric, options: AlarmShape): Alarm => {
      const created = new Alarm(this, alarmId, {
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

    // The handler turns every expected failure into a response, so a Lambda error means a crash,
    // a timeout or a failed cold start: worth a page at the first one.
    alarm('FunctionErrors', fn.metricErrors({ period, statistic: Stats.SUM }), {
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      description:
        'create-plant threw, timed out or failed to start. Read its log group for the request id.',
    });

    alarm('FunctionThrottles', fn.metricThrottles({ period, statistic: Stats.SUM }), {
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      description:
        'create-plant hit its concurrency limit; clients got 5xx. Check the account concurrency.',
    });

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
    const serverErrorRatePercent = props.serverErrorRatePercent ?? 5;
    alarm('Api5xxRate', serverErrorRate, {
      threshold: serverErrorRatePercent,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 3,
      datapointsToAlarm: 2,
      description:
        'More than the allowed share of POST /plants answers were 5xx (503 = store or issuer ' +
        'unavailable, 500 = bug) in two of the last three 5-minute periods.',
    });

    alarm('ApiP99Latency', api.metricLatency({ period, statistic: Stats.p(99) }), {
      threshold: (props.p99LatencyThreshold ?? Duration.seconds(2)).toMilliseconds(),
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 3,
      datapointsToAlarm: 2,
      description:
        'p99 latency of the API stayed high in two of the last three 5-minute periods. ' +
        'Compare with the function duration and the DynamoDB latency.',
    });

    alarm('TableThrottledRequests', tableThrottledRequests(table, period), {
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      description:
        'DynamoDB throttled PutItem or GetItem on the plants table (hot key or account limit); ' +
        'the function retries, then answers 503.',
    });

    // The rollback alarms. The paging alarms above need 5 to 15 minutes of data, longer than a
    // canary lasts, so these read 1-minute periods. CodeDeploy watches them only while it shifts
    // traffic, and rolls back when one is in ALARM. Both judge the version being deployed by its
    // own invocations alone, whatever the old version or a dependency does meanwhile.
    //
    // Each is named for that version. CloudWatch keeps an alarm's state when its definition
    // changes, so an alarm updated in place could start a deployment in last release's ALARM; a
    // new name makes CloudFormation replace it with a fresh one for every version published.
    const { alias } = props;
    const version = alias.version.version;
    const rollbackAlarmName = (name: string) => `${Stack.of(this).stackName}-${name}-${version}`;

    // Lambda counts the invocations of a weighted alias by ExecutedVersion: a crash, a timeout
    // or a failed cold start of the new version.
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
    const rollbackOnVersionErrors = alarm('DeployedVersionErrors', deployedVersionErrors, {
      alarmName: rollbackAlarmName('DeployedVersionErrors'),
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      description:
        'The create-plant version being deployed threw, timed out or failed to start. During a ' +
        'traffic shift, CodeDeploy rolls the live alias back to the previous version.',
    });

    // The handler turns its own failures into answers, so a version that answers 500 is no
    // Lambda error: its request lines count it. Only the outcome `error` (a 500, a bug) counts,
    // not a 503, which says DynamoDB or the issuer is unavailable to every version alike.
    const request = FilterPattern.stringValue('$.message', '=', 'request');
    const filters: MetricFilter[] = [];
    const countByVersion = (filterId: string, metricName: string, pattern = request) => {
      const filter = new MetricFilter(this, filterId, {
        logGroup: props.functionLogGroup,
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
    const rollbackOnServerErrors = alarm('DeployedVersionFailureRate', failureRate, {
      alarmName: rollbackAlarmName('DeployedVersionFailureRate'),
      threshold: serverErrorRatePercent,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 3,
      datapointsToAlarm: 2,
      description:
        'More than the allowed share of the answers of the create-plant version being deployed ' +
        'were 500s in two of the last three minutes. During a traffic shift, CodeDeploy rolls ' +
        'the live alias back to the previous version.',
    });
    // Counting from the first line the new version writes, the pre-traffic check's included.
    rollbackOnServerErrors.node.addDependency(...filters);
    this.rollbackAlarms = [rollbackOnVersionErrors, rollbackOnServerErrors];

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
      const action = new SnsAction(topic);
      for (const each of alarms) {
        each.addAlarmAction(action);
        each.addOkAction(action);
      }
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
