import {
  Aws,
  CfnOutput,
  CfnRule,
  Duration,
  Fn,
  RemovalPolicy,
  Stack,
  Token,
  Validations,
} from 'aws-cdk-lib';
import type { IMetric } from 'aws-cdk-lib/aws-cloudwatch';
import {
  Alarm,
  ComparisonOperator,
  Metric,
  Stats,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { FilterPattern, LogGroup, MetricFilter, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { CfnPipe } from 'aws-cdk-lib/aws-pipes';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import {
  batchSize,
  maxAttempts,
  retryDelaysSeconds,
} from '../../functions/deliver-webhook/delivery-policy.ts';
import { webhookEnvNames } from '../../functions/deliver-webhook/webhook-config.ts';
import { metricsNamespace } from '../../functions/http/request-metrics.ts';
import { pipesRegionProblem, pipesRegions } from '../pipes-regions.ts';
import { webhookSettings } from '../webhook-settings.ts';
import { HandlerFunction } from './handler-function.ts';
import { notifyOnChange } from './operational-alarms.ts';

export interface NewPlantWebhookProps {
  /** With a stream of NEW_IMAGE records: every new item is one event. */
  readonly table: ITable;
  /** The subscriber's https URL. */
  readonly url: string;
  /** @default - no notification; the alarms show in the CloudWatch console only */
  readonly alarmTopic?: ITopic;
  /** The CLI's `CDK_DEFAULT_REGION`, checked when the stack's region is a token. */
  readonly deployRegion?: string;
  /** @default webhookSettings.mappingMaxConcurrency */
  readonly maxConcurrency?: number;
}

/**
 * Retries of a batch the pipe could not send before it goes to the pipe's dead-letter queue: a few
 * minutes of the pipe's backoff ride out a blip, and the shard is not held up for a day.
 */
export const pipeRetryAttempts = 10;

/** Longer than any healthy wait (seconds), short enough to page within hours, not after a day. */
const oldestEventAgeThreshold = Duration.hours(1);

/**
 * The attempt whose failure pages: the schedule's waits before it add up to hours, so a
 * subscriber's outage pages long before the last attempt does.
 */
export const longFailingAttempt = 6;
const longFailingHours = Math.floor(
  retryDelaysSeconds.slice(0, longFailingAttempt - 1).reduce((sum, wait) => sum + wait, 0) / 3600,
);
export const longFailingDeliveryMetric = 'WebhookLongFailing';

/** The new-plant webhook: stream, pipe, queue, deliverer (docs/decisions/0100-webhook-path.md). */
export class NewPlantWebhook extends Construct {
  readonly queue: IQueue;
  readonly deadLetterQueue: IQueue;
  readonly function: IFunction;

  constructor(scope: Construct, id: string, props: NewPlantWebhookProps) {
    super(scope, id);
    const { table } = props;
    refuseRegionWithoutPipes(this, props.deployRegion);
    const streamArn = table.tableStreamArn;
    if (streamArn === undefined) {
      throw new Error('NewPlantWebhook needs a table with a stream (StreamViewType NEW_IMAGE)');
    }

    // What holds data outlives the webhook's removal and a replacement: the secret the subscriber
    // verifies with, and the queues with every event waiting for a retry or dead-lettered
    // (docs/decisions/0141-webhook-data-retained.md).
    const secret = new Secret(this, 'SigningSecret', {
      removalPolicy: RemovalPolicy.RETAIN,
      description:
        'The new-plant webhook signing secret: whsec_ followed by this value (Standard Webhooks)',
      // Generated at deploy time (docs/decisions/0102-signing-secret.md). Alphanumeric text is
      // base64 already: 48 characters hold a 36-byte HMAC key.
      generateSecretString: { passwordLength: 48, excludePunctuation: true, includeSpace: false },
    });

    const queueProps = {
      removalPolicy: RemovalPolicy.RETAIN,
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    };
    this.deadLetterQueue = new Queue(this, 'DeadLetterQueue', {
      ...queueProps,
      // A message keeps the age it had in the queue: this leaves over 12 days to look and redrive.
      retentionPeriod: Duration.days(14),
    });
    this.queue = new Queue(this, 'Queue', {
      ...queueProps,
      visibilityTimeout: Duration.seconds(webhookSettings.queueVisibilityTimeoutSeconds),
      // Longer than the whole retry schedule, so that only the DLQ ends an event's life.
      retentionPeriod: Duration.days(4),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: maxAttempts },
    });
    // Where the pipe puts what identifies a batch it could not send (shard and sequence numbers,
    // not the items), so that the shard moves on.
    const pipeDeadLetterQueue = new Queue(this, 'PipeDeadLetterQueue', {
      ...queueProps,
      retentionPeriod: Duration.days(14),
    });
    Validations.of(pipeDeadLetterQueue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason:
        "This queue is the pipe's dead-letter queue (its DeadLetterConfig), which cdk-nag does " +
        'not recognise as one: only a redrive policy names a dead-letter queue in its eyes.',
    });
    const logGroupProps = {
      retention: RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
    };
    const pipeLogGroup = new LogGroup(this, 'PipeLogGroup', logGroupProps);
    const logGroup = new LogGroup(this, 'LogGroup', logGroupProps);

    const role = new Role(this, 'DelivererRole', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description:
        'new-plant webhook deliverer: write its own logs, read the signing secret, take and hold back the messages of its queue',
    });
    const fn = new HandlerFunction(this, 'Deliverer', {
      folder: 'deliver-webhook',
      timeout: Duration.seconds(webhookSettings.functionTimeoutSeconds),
      role,
      logGroup,
      description: 'new-plant webhook: sign and POST each new plant to the subscriber',
      environment: {
        [webhookEnvNames.url]: props.url,
        // The secret's ARN, never its value: the function reads it at its cold start and again
        // every few minutes, so that a rotation needs no deploy (deliver-webhook/signing-keys.ts).
        [webhookEnvNames.secretId]: secret.secretArn,
        [webhookEnvNames.queueUrl]: this.queue.queueUrl,
      },
    });
    this.function = fn;
    logGroup.grantWrite(role);
    // Any version: the previous one still signs during a rotation's overlap.
    role.addToPolicy(
      new PolicyStatement({
        actions: ['secretsmanager:GetSecretValue'],
        resources: [secret.secretArn],
      }),
    );
    // The mapping polls as the function's role: receive, delete, and the holds of this queue's messages.
    fn.addEventSource(
      new SqsEventSource(this.queue, {
        batchSize,
        reportBatchItemFailures: true,
        maxConcurrency: props.maxConcurrency ?? webhookSettings.mappingMaxConcurrency,
      }),
    );

    const pipe = this.streamToQueue(streamArn, pipeDeadLetterQueue, pipeLogGroup);

    const howToRedrive = (what: string) =>
      `${what} Read docs/webhooks.md ("When events fail") for how to look at and redrive them.`;
    // Each fires on one occurrence in its period: any of them means an event is late or lost.
    const onAny = (id: string, metric: IMetric, description: string, threshold = 1) =>
      new Alarm(this, id, {
        metric,
        threshold,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
        alarmDescription: description,
      });
    const visible = (queue: IQueue) =>
      queue.metricApproximateNumberOfMessagesVisible({
        period: Duration.minutes(1),
        statistic: Stats.MAXIMUM,
      });
    const alarms = [
      onAny(
        'DeadLetters',
        visible(this.deadLetterQueue),
        howToRedrive(
          'A new-plant event failed its last delivery attempt (or was malformed) and is in the dead-letter queue.',
        ),
      ),
      onAny(
        'DelivererErrors',
        fn.metricErrors({ period: Duration.minutes(5), statistic: Stats.SUM }),
        'The webhook deliverer threw, timed out or failed to start: its batch comes back after the ' +
          "queue's visibility timeout, each such receive using up one of the event's attempts.",
      ),
      onAny(
        'PipeFailures',
        new Metric({
          namespace: 'AWS/EventBridge/Pipes',
          metricName: 'ExecutionFailed',
          dimensionsMap: { PipeName: pipe.ref },
          period: Duration.minutes(5),
          statistic: Stats.SUM,
        }),
        `The pipe from the table stream to the webhook queue failed; it retries ${pipeRetryAttempts} ` +
          'times, then puts what identifies the records in its own dead-letter queue and moves on.',
      ),
      onAny(
        'PipeDeadLetters',
        visible(pipeDeadLetterQueue),
        'The pipe could not send a batch of new-plant stream records to the webhook queue after ' +
          'its retries: those plants were not delivered. Read docs/webhooks.md ("When the pipe ' +
          'fails") for how to find them.',
      ),
      onAny(
        'OldestEventAge',
        // SQS counts an event's age from when the pipe sent it; an event received three times is
        // no longer counted, so this reads events nobody is taking, not a subscriber's outage.
        this.queue.metricApproximateAgeOfOldestMessage({
          period: Duration.minutes(5),
          statistic: Stats.MAXIMUM,
        }),
        howToRedrive(
          `A new-plant event has waited over ${oldestEventAgeThreshold.toHumanString()} in the webhook queue without being taken: the deliverer is not running (event source mapping disabled, throttled, failing to start).`,
        ),
        oldestEventAgeThreshold.toSeconds(),
      ),
      onAny(
        'LongFailingDelivery',
        new MetricFilter(this, 'LongFailingDeliveries', {
          logGroup,
          filterPattern: FilterPattern.all(
            FilterPattern.stringValue('$.message', '=', 'webhook delivery'),
            FilterPattern.stringValue('$.outcome', '=', 'retried'),
            FilterPattern.numberValue('$.attempt', '>=', longFailingAttempt),
          ),
          metricNamespace: metricsNamespace,
          metricName: longFailingDeliveryMetric,
          metricValue: '1',
        }).metric({ period: Duration.minutes(5), statistic: Stats.SUM }),
        howToRedrive(
          `A new-plant event failed its attempt ${longFailingAttempt}: the subscriber has refused or not answered it for ${longFailingHours} hours or more.`,
        ),
      ),
    ];
    if (props.alarmTopic !== undefined) notifyOnChange(alarms, props.alarmTopic);

    // The stack's outputs, under the keys operators and docs/webhooks.md already use.
    const output = (key: string, description: string, value: string) =>
      new CfnOutput(this, key, { description, value }).overrideLogicalId(key);
    output(
      'WebhookSecretCommand',
      'Prints the webhook signing secret, whsec_..., for the subscriber (needs secretsmanager:GetSecretValue)',
      `aws secretsmanager get-secret-value --region ${Aws.REGION} --secret-id ${secret.secretArn} --query "join('', ['whsec_', SecretString])" --output text`,
    );
    output(
      'WebhookDeadLetterQueueUrl',
      'The new-plant events that failed their last attempt (docs/webhooks.md)',
      this.deadLetterQueue.queueUrl,
    );
    output(
      'WebhookRedriveCommand',
      'Sends every dead-lettered event back to the webhook queue for a new schedule',
      `aws sqs start-message-move-task --region ${Aws.REGION} --source-arn ${this.deadLetterQueue.queueArn}`,
    );

    Validations.of(secret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'Rotating a webhook signing secret needs the subscriber to move to the new secret: ' +
        'one put-secret-value started by hand (docs/webhooks.md), after which the deliverer ' +
        'signs with both secrets for a day, not a rotation Lambda on a schedule that no ' +
        'subscriber is told of.',
    });
  }

  /** From the oldest record the stream holds, so that no item written after it was enabled is missed. */
  private streamToQueue(streamArn: string, deadLetters: IQueue, logGroup: LogGroup): CfnPipe {
    const role = new Role(this, 'PipeRole', {
      assumedBy: new ServicePrincipal('pipes.amazonaws.com', {
        conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(this).account } },
      }),
      description: "new-plant webhook pipe: read the plants table's stream, send to the queue",
    });
    role.addToPolicy(
      new PolicyStatement({
        actions: ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator'],
        resources: [streamArn],
      }),
    );
    role.addToPolicy(new PolicyStatement({ actions: ['dynamodb:ListStreams'], resources: ['*'] }));
    role.addToPolicy(
      new PolicyStatement({
        actions: ['sqs:SendMessage'],
        resources: [this.queue.queueArn, deadLetters.queueArn],
      }),
    );
    logGroup.grantWrite(role);
    Validations.of(role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'dynamodb:ListStreams supports no resource-level permissions, and EventBridge Pipes ' +
        "requires it of a DynamoDB stream source's role; it only lists stream ARNs. Reading " +
        "records is granted on this table's stream alone.",
    });

    const pipe = new CfnPipe(this, 'Pipe', {
      roleArn: role.roleArn,
      source: streamArn,
      sourceParameters: {
        dynamoDbStreamParameters: {
          startingPosition: 'TRIM_HORIZON',
          // SQS takes at most 10 messages per batch.
          batchSize: 10,
          maximumRetryAttempts: pipeRetryAttempts,
          deadLetterConfig: { arn: deadLetters.queueArn },
        },
        filterCriteria: { filters: [{ pattern: JSON.stringify(webhookSettings.pipeFilter) }] },
      },
      target: this.queue.queueArn,
      // Errors only, without the records: no plant's data in the logs.
      logConfiguration: {
        level: 'ERROR',
        cloudwatchLogsLogDestination: { logGroupArn: logGroup.logGroupArn },
      },
      description: `new-plant events of ${Aws.STACK_NAME}: table stream INSERTs to the webhook queue`,
    });
    // The pipe checks its role's permissions when it is created.
    pipe.node.addDependency(role);
    return pipe;
  }
}

/**
 * Fails the synth when the deploy's region is known and has no EventBridge Pipes, and adds a
 * template rule that refuses such a region before any resource is created.
 */
function refuseRegionWithoutPipes(scope: Construct, deployRegion: string | undefined): void {
  const stack = Stack.of(scope);
  const region = Token.isUnresolved(stack.region) ? deployRegion : stack.region;
  const problem = region === undefined ? undefined : pipesRegionProblem(region);
  if (problem !== undefined) throw new Error(problem);
  new CfnRule(scope, 'PipesRegion', {
    assertions: [
      {
        assert: Fn.conditionContains([...pipesRegions], Aws.REGION),
        assertDescription: pipesRegionProblem('this region') ?? '',
      },
    ],
  });
}
