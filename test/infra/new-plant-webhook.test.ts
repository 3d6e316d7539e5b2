import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { matchesPattern } from '../../dev-server/webhook/pipe.ts';
import {
  batchSize,
  deliveryDeadlineMs,
  maxAttempts,
  retryDelaysSeconds,
} from '../../functions/deliver-webhook/delivery-policy.ts';
import { webhookEnvNames } from '../../functions/deliver-webhook/webhook-config.ts';
import { metricsNamespace } from '../../functions/http/request-metrics.ts';
import {
  longFailingAttempt,
  longFailingDeliveryMetric,
  pipeRetryAttempts,
} from '../../infra/constructs/new-plant-webhook.ts';
import { pipesRegions } from '../../infra/pipes-regions.ts';
import { checkPlantTag } from '../../infra/webhook-settings.ts';
import {
  buildStack,
  onlyResource,
  type PolicyStatement,
  resourceAt,
  roleOf,
  roleStatements,
  synthStack,
  type TemplateResource,
} from '../support/synth.ts';
import { insertRecord } from '../support/webhook-events.ts';

const webhookUrl = 'https://hooks.example.com/plant/webhook';

let template: Template;
let withoutWebhook: Template;
let withEmail: Template;

beforeAll(() => {
  template = synthStack({ webhookUrl }).template;
  withoutWebhook = synthStack().template;
  withEmail = synthStack({ webhookUrl, alarmEmail: 'oncall@example.com' }).template;
});

const webhookTypes = [
  'AWS::Pipes::Pipe',
  'AWS::SQS::Queue',
  'AWS::SQS::QueuePolicy',
  'AWS::SecretsManager::Secret',
  'AWS::Lambda::EventSourceMapping',
];
const at = (type: string, idPrefix: string) => resourceAt(template, type, idPrefix);
const logicalId = (type: string, idPrefix: string) => at(type, idPrefix)[0];
const queueId = () => logicalId('AWS::SQS::Queue', 'NewPlantWebhookQueue');
const deadLetterQueueId = () => logicalId('AWS::SQS::Queue', 'NewPlantWebhookDeadLetterQueue');
const secretId = () => onlyResource(template, 'AWS::SecretsManager::Secret')[0];
const deliverer = () => at('AWS::Lambda::Function', 'NewPlantWebhookDeliverer');
const tableId = () => onlyResource(template, 'AWS::DynamoDB::Table')[0];
const actionsOf = (statement: PolicyStatement) =>
  [statement.Action].flat().sort((a, b) => a.localeCompare(b));

describe('PlantStoreStack without webhookUrl', () => {
  it('has no stream, pipe, queue, secret, deliverer or webhook output, as before the webhook', () => {
    for (const type of webhookTypes) withoutWebhook.resourceCountIs(type, 0);
    const [, table] = onlyResource(withoutWebhook, 'AWS::DynamoDB::Table');
    expect(table.Properties).not.toHaveProperty('StreamSpecification');
    expect(
      Object.keys(withoutWebhook.findResources('AWS::Lambda::Function')).filter((id) =>
        id.startsWith('NewPlantWebhook'),
      ),
    ).toStrictEqual([]);
    expect(
      Object.keys(withoutWebhook.toJSON().Outputs).filter((name) => name.startsWith('Webhook')),
    ).toStrictEqual([]);
    expect(JSON.stringify(withoutWebhook.toJSON())).not.toMatch(/webhook/i);
  });
});

describe('NewPlantWebhook', () => {
  it('keeps a NEW_IMAGE stream on the table, which keeps its logical id', () => {
    const [id, table] = onlyResource(template, 'AWS::DynamoDB::Table');

    expect(table.Properties.StreamSpecification).toStrictEqual({ StreamViewType: 'NEW_IMAGE' });
    expect(id).toBe(onlyResource(withoutWebhook, 'AWS::DynamoDB::Table')[0]);
  });

  it("pipes the stream's INSERT records but the checks' plants, from the oldest one, to the queue", () => {
    const [, pipe] = onlyResource(template, 'AWS::Pipes::Pipe');

    expect(pipe.Properties).toMatchObject({
      Source: { 'Fn::GetAtt': [tableId(), 'StreamArn'] },
      Target: { 'Fn::GetAtt': [queueId(), 'Arn'] },
      SourceParameters: {
        DynamoDBStreamParameters: { StartingPosition: 'TRIM_HORIZON' },
        FilterCriteria: {
          Filters: [
            {
              Pattern: JSON.stringify({
                eventName: ['INSERT'],
                dynamodb: {
                  NewImage: {
                    tag: { S: [{ 'anything-but': ['plant-store-check'] }, { exists: false }] },
                  },
                },
              }),
            },
          ],
        },
      },
    });
    const batch = (pipe.Properties.SourceParameters as Record<string, Record<string, number>>)
      .DynamoDBStreamParameters?.BatchSize;
    expect(batch).toBeLessThanOrEqual(10);
  });

  it.each([
    ['a new plant with a tag', true, insertRecord({ id: '1', name: 'Fern', tag: 'indoor' })],
    ['a new plant without a tag', true, insertRecord({ id: '2', name: 'Fern' })],
    ["a check's plant", false, insertRecord({ id: '3', name: 'Fern', tag: checkPlantTag })],
    ['a replace', false, { ...insertRecord({ id: '4', name: 'Fern' }), eventName: 'MODIFY' }],
    ['a delete', false, { ...insertRecord({ id: '5', name: 'Fern' }), eventName: 'REMOVE' }],
  ])(
    "the template's filter, as the local pipe reads it, lets %s through: %s",
    (_case, kept, record) => {
      const [, pipe] = onlyResource(template, 'AWS::Pipes::Pipe');
      const { Filters } = (
        pipe.Properties.SourceParameters as Record<string, Record<string, unknown>>
      ).FilterCriteria as { Filters: { Pattern: string }[] };

      expect(Filters).toHaveLength(1);
      expect(matchesPattern(JSON.parse(Filters[0]?.Pattern ?? '{}'), record)).toBe(kept);
    },
  );

  it('gives the pipe a retry limit, a dead-letter queue of its own and an error log without the records', () => {
    const [, pipe] = onlyResource(template, 'AWS::Pipes::Pipe');
    const [pipeDlqId, pipeDlq] = at('AWS::SQS::Queue', 'NewPlantWebhookPipeDeadLetterQueue');
    const [logGroupId] = at('AWS::Logs::LogGroup', 'NewPlantWebhookPipeLogGroup');

    expect(pipe.Properties).toMatchObject({
      SourceParameters: {
        DynamoDBStreamParameters: {
          MaximumRetryAttempts: pipeRetryAttempts,
          DeadLetterConfig: { Arn: { 'Fn::GetAtt': [pipeDlqId, 'Arn'] } },
        },
      },
      LogConfiguration: {
        Level: 'ERROR',
        CloudwatchLogsLogDestination: { LogGroupArn: { 'Fn::GetAtt': [logGroupId, 'Arn'] } },
      },
    });
    // A stuck batch holds its shard up for minutes, not until the stream drops it a day later.
    expect(pipeRetryAttempts).toBeGreaterThan(0);
    expect(pipeRetryAttempts).toBeLessThanOrEqual(185);
    expect(JSON.stringify(pipe.Properties)).not.toContain('IncludeExecutionData');
    expect(pipeDlq.Properties.MessageRetentionPeriod).toBe(14 * 24 * 60 * 60);
  });

  it('keeps the queues, the pipe dead-letter queue and the signing secret when removed or replaced', () => {
    const kept = [
      at('AWS::SQS::Queue', 'NewPlantWebhookQueue')[1],
      at('AWS::SQS::Queue', 'NewPlantWebhookDeadLetterQueue')[1],
      at('AWS::SQS::Queue', 'NewPlantWebhookPipeDeadLetterQueue')[1],
      onlyResource(template, 'AWS::SecretsManager::Secret')[1],
    ];
    for (const resource of kept) {
      expect(resource.DeletionPolicy).toBe('Retain');
      expect(resource.UpdateReplacePolicy).toBe('Retain');
    }
  });

  it('dead-letters an event after the last attempt of the schedule, and keeps it 14 days; every queue takes TLS only', () => {
    const [, queue] = at('AWS::SQS::Queue', 'NewPlantWebhookQueue');
    const [, deadLetters] = at('AWS::SQS::Queue', 'NewPlantWebhookDeadLetterQueue');
    const schedule = retryDelaysSeconds.reduce((sum, wait) => sum + wait, 0);

    expect(queue.Properties.RedrivePolicy).toStrictEqual({
      deadLetterTargetArn: { 'Fn::GetAtt': [deadLetterQueueId(), 'Arn'] },
      maxReceiveCount: maxAttempts,
    });
    expect(queue.Properties.MessageRetentionPeriod).toBeGreaterThan(schedule * 1.2 + 3600);
    expect(deadLetters.Properties.MessageRetentionPeriod).toBe(14 * 24 * 60 * 60);
    for (const each of [queue, deadLetters]) {
      expect(each.Properties.SqsManagedSseEnabled).toBe(true);
    }
    template.resourcePropertiesCountIs(
      'AWS::SQS::QueuePolicy',
      {
        PolicyDocument: {
          Statement: [
            Match.objectLike({
              Effect: 'Deny',
              Condition: { Bool: { 'aws:SecureTransport': 'false' } },
            }),
          ],
        },
      },
      3,
    );
  });

  it('feeds the deliverer small batches whose failed events come back alone', () => {
    const [functionId, fn] = deliverer();
    const [, queue] = at('AWS::SQS::Queue', 'NewPlantWebhookQueue');

    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: { 'Fn::GetAtt': [queueId(), 'Arn'] },
      FunctionName: { Ref: functionId },
      BatchSize: batchSize,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ScalingConfig: { MaximumConcurrency: 5 },
    });
    const timeout = fn.Properties.Timeout as number;
    expect(timeout * 1000).toBeGreaterThan(deliveryDeadlineMs);
    // Lambda's advice for a queue it polls: at least six times the function's timeout.
    expect(queue.Properties.VisibilityTimeout).toBeGreaterThanOrEqual(6 * timeout);
  });

  it('runs as many deliverers at once as the stage says', () => {
    synthStack({ webhookUrl, webhookConcurrency: 2 }).template.hasResourceProperties(
      'AWS::Lambda::EventSourceMapping',
      { ScalingConfig: { MaximumConcurrency: 2 } },
    );
  });

  it('runs the deliverer on Node 24 and arm64 with the URL, and the secret by reference only', () => {
    const [, fn] = deliverer();

    expect(fn.Properties).toMatchObject({
      Runtime: 'nodejs24.x',
      Architectures: ['arm64'],
      Handler: 'index.handler',
      LoggingConfig: { LogFormat: 'JSON' },
    });
    expect((fn.Properties.Environment as { Variables: unknown }).Variables).toStrictEqual({
      [webhookEnvNames.url]: webhookUrl,
      [webhookEnvNames.secretId]: { Ref: secretId() },
      [webhookEnvNames.queueUrl]: { Ref: queueId() },
    });
  });

  it('generates the secret at deploy time as 48 alphanumerics: a whsec_ key of 36 bytes', () => {
    const [, secret] = onlyResource(template, 'AWS::SecretsManager::Secret');

    expect(secret.Properties.GenerateSecretString).toStrictEqual({
      PasswordLength: 48,
      ExcludePunctuation: true,
      IncludeSpace: false,
    });
    expect(secret.Properties).not.toHaveProperty('SecretString');
    expect(JSON.stringify(template.toJSON())).not.toMatch(/whsec_[A-Za-z0-9+/]{8}/);
  });

  it('lets the deliverer read that secret and take, delete and hold back that queue’s messages only', () => {
    const [, fn] = deliverer();
    const [logGroupId] = at('AWS::Logs::LogGroup', 'NewPlantWebhookLogGroup');

    const statements = roleStatements(template, roleOf(fn)).map((statement) => ({
      actions: actionsOf(statement),
      resource: statement.Resource,
    }));

    expect(statements).toStrictEqual([
      {
        actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        resource: { 'Fn::GetAtt': [logGroupId, 'Arn'] },
      },
      { actions: ['secretsmanager:GetSecretValue'], resource: { Ref: secretId() } },
      {
        actions: [
          'sqs:ChangeMessageVisibility',
          'sqs:DeleteMessage',
          'sqs:GetQueueAttributes',
          'sqs:GetQueueUrl',
          'sqs:ReceiveMessage',
        ],
        resource: { 'Fn::GetAtt': [queueId(), 'Arn'] },
      },
    ]);
    const [, role] = at('AWS::IAM::Role', 'NewPlantWebhookDelivererRole');
    expect(role.Properties).not.toHaveProperty('ManagedPolicyArns');
  });

  it('lets the deliverer read every version of the secret, so that the previous one signs during a rotation', () => {
    const [, fn] = deliverer();

    const reads = roleStatements(template, roleOf(fn)).filter((statement) =>
      actionsOf(statement).includes('secretsmanager:GetSecretValue'),
    );

    // A condition on secretsmanager:VersionStage would refuse AWSPREVIOUS, and the overlap with it.
    expect(reads).toHaveLength(1);
    expect(reads[0]).not.toHaveProperty('Condition');
  });

  it("lets the pipe read the table's stream and send to the queue, and nothing more", () => {
    const [, pipe] = onlyResource(template, 'AWS::Pipes::Pipe');
    const roleId = (pipe.Properties.RoleArn as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
    const [, role] = at('AWS::IAM::Role', roleId);

    const statements = roleStatements(template, roleId).map((statement) => ({
      actions: actionsOf(statement),
      resource: statement.Resource,
    }));

    expect(statements).toStrictEqual([
      {
        actions: ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator'],
        resource: { 'Fn::GetAtt': [tableId(), 'StreamArn'] },
      },
      { actions: ['dynamodb:ListStreams'], resource: '*' },
      {
        actions: ['sqs:SendMessage'],
        // Sorted by logical id, as the CDK writes a policy's resources.
        resource: [
          {
            'Fn::GetAtt': [
              logicalId('AWS::SQS::Queue', 'NewPlantWebhookPipeDeadLetterQueue'),
              'Arn',
            ],
          },
          { 'Fn::GetAtt': [queueId(), 'Arn'] },
        ],
      },
      {
        actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        resource: {
          'Fn::GetAtt': [logicalId('AWS::Logs::LogGroup', 'NewPlantWebhookPipeLogGroup'), 'Arn'],
        },
      },
    ]);
    expect(role.Properties.AssumeRolePolicyDocument).toMatchObject({
      Statement: [
        {
          Principal: { Service: 'pipes.amazonaws.com' },
          Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } },
        },
      ],
    });
    expect(pipe.DependsOn).toEqual(expect.arrayContaining([roleId]));
  });

  it('alarms at the first dead-lettered event, and notifies the alarm topic', () => {
    const [, alarm] = at('AWS::CloudWatch::Alarm', 'NewPlantWebhookDeadLetters');
    const [topicId] = onlyResource(withEmail, 'AWS::SNS::Topic');
    const [, notifying] = resourceAt(
      withEmail,
      'AWS::CloudWatch::Alarm',
      'NewPlantWebhookDeadLetters',
    );

    expect(alarm.Properties).toMatchObject({
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [
        { Name: 'QueueName', Value: { 'Fn::GetAtt': [deadLetterQueueId(), 'QueueName'] } },
      ],
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
    });
    expect(notifying.Properties.AlarmActions).toStrictEqual([{ Ref: topicId }]);
    expect(notifying.Properties.OKActions).toStrictEqual([{ Ref: topicId }]);
  });

  it("alarms on the deliverer's errors and the pipe's failures", () => {
    const [functionId] = deliverer();
    const [, pipeAlarm] = at('AWS::CloudWatch::Alarm', 'NewPlantWebhookPipeFailures');
    const [pipeId] = onlyResource(template, 'AWS::Pipes::Pipe');

    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/Lambda',
      MetricName: 'Errors',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: functionId } }],
      Threshold: 1,
    });
    expect(pipeAlarm.Properties).toMatchObject({
      Namespace: 'AWS/EventBridge/Pipes',
      MetricName: 'ExecutionFailed',
      Dimensions: [{ Name: 'PipeName', Value: { Ref: pipeId } }],
    });
  });

  it('pages on an event nobody takes within the hour, and on one failing for hours', () => {
    const [, age] = at('AWS::CloudWatch::Alarm', 'NewPlantWebhookOldestEventAge');
    expect(age.Properties).toMatchObject({
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateAgeOfOldestMessage',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [queueId(), 'QueueName'] } }],
      Threshold: 3600,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
    // Far sooner than the dead-letter alarm, which waits for the whole schedule.
    expect(
      (age.Properties.Period as number) * (age.Properties.EvaluationPeriods as number) + 3600,
    ).toBeLessThan(4 * 3600);

    const [, filter] = at('AWS::Logs::MetricFilter', 'NewPlantWebhookLongFailingDeliveries');
    const [logGroupId] = at('AWS::Logs::LogGroup', 'NewPlantWebhookLogGroup');
    expect(filter.Properties).toMatchObject({
      LogGroupName: { Ref: logGroupId },
      FilterPattern: `{ ($.message = "webhook delivery") && ($.outcome = "retried") && ($.attempt >= ${longFailingAttempt}) }`,
      MetricTransformations: [
        {
          MetricName: longFailingDeliveryMetric,
          MetricNamespace: metricsNamespace,
          MetricValue: '1',
        },
      ],
    });
    const hoursBefore =
      retryDelaysSeconds.slice(0, longFailingAttempt - 1).reduce((sum, wait) => sum + wait, 0) /
      3600;
    expect(hoursBefore).toBeGreaterThan(1);
    expect(hoursBefore).toBeLessThan(6);
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: longFailingDeliveryMetric,
      Threshold: 1,
    });
  });

  it('pages at the first batch the pipe dead-letters', () => {
    const [, alarm] = at('AWS::CloudWatch::Alarm', 'NewPlantWebhookPipeDeadLetters');
    expect(alarm.Properties).toMatchObject({
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [
        {
          Name: 'QueueName',
          Value: {
            'Fn::GetAtt': [
              logicalId('AWS::SQS::Queue', 'NewPlantWebhookPipeDeadLetterQueue'),
              'QueueName',
            ],
          },
        },
      ],
      Threshold: 1,
    });
  });

  it('refuses, in the template, a region without EventBridge Pipes before anything is created', () => {
    const rules = template.toJSON().Rules as Record<string, { Assertions: unknown[] }>;
    const [rule] = Object.values(rules).filter((each) =>
      JSON.stringify(each).includes('EventBridge Pipes'),
    );
    expect(rule?.Assertions).toStrictEqual([
      {
        Assert: { 'Fn::Contains': [[...pipesRegions], { Ref: 'AWS::Region' }] },
        AssertDescription: expect.stringContaining('needs EventBridge Pipes'),
      },
    ]);
    expect(pipesRegions).toContain('us-east-1');
    expect(pipesRegions).not.toContain('ap-east-2');
    expect(withoutWebhook.toJSON().Rules ?? {}).not.toHaveProperty(Object.keys(rules)[0] ?? '');
  });

  it.each([
    ['the region the CLI deploys to', { deployRegion: 'ap-east-2' }],
    ["the stack's own region", { env: { region: 'ap-east-2' } }],
  ])('fails the synth, naming the region, when %s has no EventBridge Pipes', (_which, options) => {
    expect(() => buildStack({ webhookUrl, ...options })).toThrow(
      /webhookUrl\) needs EventBridge Pipes, which ap-east-2 is not known to offer/,
    );
    expect(() => buildStack({ ...options })).not.toThrow();
  });

  it('outputs the command that prints the secret in whsec_ form, and how to redrive the DLQ', () => {
    template.hasOutput('WebhookSecretCommand', {
      Value: {
        'Fn::Join': [
          '',
          [
            'aws secretsmanager get-secret-value --region ',
            { Ref: 'AWS::Region' },
            ' --secret-id ',
            { Ref: secretId() },
            ` --query "join('', ['whsec_', SecretString])" --output text`,
          ],
        ],
      },
    });
    template.hasOutput('WebhookDeadLetterQueueUrl', { Value: { Ref: deadLetterQueueId() } });
    template.hasOutput('WebhookRedriveCommand', {
      Value: {
        'Fn::Join': [
          '',
          [
            'aws sqs start-message-move-task --region ',
            { Ref: 'AWS::Region' },
            ' --source-arn ',
            { 'Fn::GetAtt': [deadLetterQueueId(), 'Arn'] },
          ],
        ],
      },
    });
  });

  it('sets no physical name on anything it adds', () => {
    const named = Object.entries(template.toJSON().Resources as Record<string, TemplateResource>)
      .filter(([id]) => id.startsWith('NewPlantWebhook'))
      .filter(([, resource]) =>
        ['QueueName', 'Name', 'FunctionName', 'RoleName', 'AlarmName', 'LogGroupName'].some(
          (key) => typeof resource.Properties[key] === 'string',
        ),
      );

    expect(named.map(([id]) => id)).toStrictEqual([]);
  });
});
