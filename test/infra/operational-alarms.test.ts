import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import type { CfnTemplate } from '../../bench/support/cloud-assembly.ts';
import { evaluateCfn } from '../../bench/support/cloudformation.ts';
import { metricsNamespace } from '../../functions/http/request-metrics.ts';
import { type Operation, operations } from '../../functions/operations.ts';
import { serverFailureCounters } from '../../infra/operation-outcomes.ts';
import {
  onlyResource,
  operationResource,
  type TemplateResource as Resource,
  synthStack,
} from '../support/synth.ts';

let template: Template;
let withEmail: Template;

beforeAll(() => {
  template = synthStack().template;
  withEmail = synthStack({ alarmEmail: 'oncall@example.com' }).template;
});

/** Three for the API and the table; per operation three that page and two that roll back. */
const alarmCount = 3 + 5 * operations.length;

const alarms = () => Object.values(template.findResources('AWS::CloudWatch::Alarm')) as Resource[];
const alarmOf = (operation: Operation, name: string) =>
  operationResource(template, 'AWS::CloudWatch::Alarm', operation, name, 'Alarms');
const functionOf = (operation: Operation) =>
  operationResource(template, 'AWS::Lambda::Function', operation, 'Function');
const versionOf = (operation: Operation) =>
  operationResource(template, 'AWS::Lambda::Version', operation, 'FunctionCurrentVersion');

type MetricQuery = {
  Id: string;
  Expression?: string;
  MetricStat?: {
    Metric: { Namespace: string; MetricName: string; Dimensions: unknown[] };
    Period: number;
    Stat: string;
  };
};

describe('OperationalAlarms', () => {
  it('has three alarms for the API and the table, and five per operation, none firing on missing data', () => {
    expect(alarms()).toHaveLength(alarmCount);
    for (const alarm of alarms()) {
      expect(alarm.Properties.TreatMissingData).toBe('notBreaching');
    }
  });

  it('alarms on the API p99 latency', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/ApiGateway',
      MetricName: 'Latency',
      ExtendedStatistic: 'p99',
      Threshold: 2000,
    });
  });

  it('alarms on the API 5xx rate, as a percentage of requests', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Threshold: 5,
      Metrics: Match.arrayWith([
        Match.objectLike({ Expression: 'IF(requests > 0, 100 * errors / requests, 0)' }),
        Match.objectLike({
          Id: 'errors',
          MetricStat: Match.objectLike({
            Metric: Match.objectLike({ Namespace: 'AWS/ApiGateway', MetricName: '5xx' }),
          }),
        }),
        Match.objectLike({
          Id: 'requests',
          MetricStat: Match.objectLike({
            Metric: Match.objectLike({ Namespace: 'AWS/ApiGateway', MetricName: 'Count' }),
          }),
        }),
      ]),
    });
  });

  it('alarms on DynamoDB throttling of every call the operations make, each filled with 0', () => {
    const table = onlyResource(template, 'AWS::DynamoDB::Table')[0];
    const [throttling, ...more] = alarms().filter((alarm) =>
      JSON.stringify(alarm.Properties.Metrics ?? []).includes('ThrottledRequests'),
    );
    expect(more).toEqual([]);
    const metrics = throttling?.Properties.Metrics as MetricQuery[];
    const [expression, ...moreExpressions] = metrics.filter((metric) => metric.Expression);
    const series = metrics.filter((metric) => metric.MetricStat !== undefined);

    expect(moreExpressions).toEqual([]);
    expect(
      series.map(({ MetricStat }) => {
        expect(MetricStat?.Metric.MetricName).toBe('ThrottledRequests');
        expect(MetricStat?.Metric.Dimensions).toContainEqual({
          Name: 'TableName',
          Value: { Ref: table },
        });
        return ((MetricStat?.Metric.Dimensions ?? []) as { Name: string; Value: unknown }[]).find(
          (dimension) => dimension.Name === 'Operation',
        )?.Value;
      }),
    ).toEqual([
      ...new Set(
        operations.flatMap(({ dynamodbActions }) =>
          dynamodbActions.map((action) => action.replace(/^dynamodb:/, '')),
        ),
      ),
    ]);
    // Every series the sum reads is FILLed, and no series is read bare: DynamoDB publishes no
    // datapoint for a call that did not run, and a sum with a missing term has no value.
    for (const { Id } of series) {
      expect(expression?.Expression).toContain(`FILL(${Id}, 0)`);
      expect(expression?.Expression?.replaceAll(`FILL(${Id}, 0)`, '')).not.toMatch(
        new RegExp(`\\b${Id}\\b`),
      );
    }
  });
});

describe('OperationalAlarms per operation, paging', () => {
  it.each(operations)(
    'pages on any error of $name: a crash, a timeout or a failed start',
    (operation) => {
      const [functionId] = functionOf(operation);
      const [, alarm] = alarmOf(operation, 'FunctionErrors');

      expect(alarm.Properties).toMatchObject({
        Namespace: 'AWS/Lambda',
        MetricName: 'Errors',
        Dimensions: [{ Name: 'FunctionName', Value: { Ref: functionId } }],
        Statistic: 'Sum',
        Period: 300,
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      });
    },
  );

  it.each(operations)('pages on a throttle of $name, whichever version it hit', (operation) => {
    const [functionId] = functionOf(operation);
    const [, alarm] = alarmOf(operation, 'FunctionThrottles');

    expect(alarm.Properties).toMatchObject({
      Namespace: 'AWS/Lambda',
      MetricName: 'Throttles',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: functionId } }],
      Threshold: 1,
    });
  });

  it.each(operations)(
    "pages on $name's own share of 5xx answers, however few its requests among the API's",
    (operation) => {
      const [functionId] = functionOf(operation);
      const [, alarm] = alarmOf(operation, 'ServerErrorRate');
      const metrics = alarm.Properties.Metrics as MetricQuery[];

      expect(alarm.Properties).toMatchObject({
        Threshold: 5,
        ComparisonOperator: 'GreaterThanThreshold',
        EvaluationPeriods: 3,
        DatapointsToAlarm: 2,
      });
      const counted = metrics.flatMap(({ Id, MetricStat }) =>
        MetricStat === undefined
          ? []
          : [[Id, MetricStat.Metric.Namespace, MetricStat.Metric.MetricName]],
      );
      expect(counted).toEqual([
        ...serverFailureCounters.map((counter) => [
          counter.toLowerCase(),
          metricsNamespace,
          counter,
        ]),
        ['invocations', 'AWS/Lambda', 'Invocations'],
      ]);
      for (const { MetricStat } of metrics) {
        if (MetricStat === undefined) continue;
        expect(MetricStat).toMatchObject({ Period: 300, Stat: 'Sum' });
        expect(MetricStat.Metric.Dimensions).toHaveLength(1);
        expect(MetricStat.Metric.Dimensions[0]).toMatchObject({ Value: { Ref: functionId } });
      }
      const fills = serverFailureCounters.map((counter) => `FILL(${counter.toLowerCase()}, 0)`);
      expect(metrics.find((metric) => metric.Expression)?.Expression).toBe(
        `IF(invocations > 0, 100 * (${fills.join(' + ')}) / invocations, 0)`,
      );
    },
  );

  it('counts 500s and the 503s of an unavailable store or issuer as 5xx', () => {
    expect(serverFailureCounters).toEqual(['Errors', 'StoreUnavailable', 'IssuerUnavailable']);
  });

  it('keeps every paging alarm on a function, the API or the table, not on a version', () => {
    for (const [id, alarm] of Object.entries(template.findResources('AWS::CloudWatch::Alarm'))) {
      if (/DeployedVersion/.test(id)) continue;
      expect(JSON.stringify(alarm.Properties)).not.toContain('ExecutedVersion');
      expect(JSON.stringify(alarm.Properties)).not.toContain('FunctionVersion');
    }
  });
});

describe('OperationalAlarms per operation, rolling back', () => {
  it.each(operations)(
    'count the errors of the $name version being deployed, through its alias, each minute',
    (operation) => {
      const [functionId] = functionOf(operation);
      const [versionId] = versionOf(operation);
      const [, alarm] = alarmOf(operation, 'DeployedVersionErrors');

      expect(alarm.Properties).toMatchObject({
        Namespace: 'AWS/Lambda',
        MetricName: 'Errors',
        Statistic: 'Sum',
        Period: 60,
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        EvaluationPeriods: 1,
        TreatMissingData: 'notBreaching',
      });
      expect(alarm.Properties.Dimensions).toEqual(
        expect.arrayContaining([
          { Name: 'FunctionName', Value: { Ref: functionId } },
          { Name: 'Resource', Value: { 'Fn::Join': ['', [{ Ref: functionId }, ':live']] } },
          { Name: 'ExecutedVersion', Value: { 'Fn::GetAtt': [versionId, 'Version'] } },
        ]),
      );
      expect(alarm.Properties.Dimensions).toHaveLength(3);
    },
  );

  it.each(operations)(
    "read the share of the new $name version's own answers that were 500s, two bad minutes of three",
    (operation) => {
      const [functionId] = functionOf(operation);
      const [versionId] = versionOf(operation);
      const [, alarm] = alarmOf(operation, 'DeployedVersionFailureRate');
      expect(alarm.Properties).toMatchObject({
        Threshold: 5,
        ComparisonOperator: 'GreaterThanThreshold',
        EvaluationPeriods: 3,
        DatapointsToAlarm: 2,
        TreatMissingData: 'notBreaching',
      });
      const metrics = alarm.Properties.Metrics as MetricQuery[];
      expect(metrics.find((metric) => metric.Expression)?.Expression).toBe(
        'IF(requests > 0, 100 * FILL(failures, 0) / requests, 0)',
      );
      const series = metrics.flatMap((metric) => (metric.MetricStat ? [metric] : []));
      expect(series.map(({ Id, MetricStat }) => [Id, MetricStat?.Metric.MetricName])).toEqual([
        ['requests', 'VersionRequests'],
        ['failures', 'VersionFailures'],
      ]);
      for (const { MetricStat } of series) {
        expect(MetricStat).toMatchObject({ Period: 60, Stat: 'Sum' });
        expect(MetricStat?.Metric.Namespace).toBe('PlantStore');
        expect(MetricStat?.Metric.Dimensions).toEqual(
          expect.arrayContaining([
            { Name: 'Service', Value: { Ref: functionId } },
            { Name: 'FunctionVersion', Value: { 'Fn::GetAtt': [versionId, 'Version'] } },
          ]),
        );
        expect(MetricStat?.Metric.Dimensions).toHaveLength(2);
      }
      // Nothing the old version, the gateway, another operation or a dependency does is read.
      expect(JSON.stringify(metrics)).not.toContain('AWS/ApiGateway');
    },
  );

  it.each(operations)(
    "count requests and 500s from $name's own log group by version, not 503s",
    (operation) => {
      const [, fn] = functionOf(operation);
      const { LogGroup } = fn.Properties.LoggingConfig as { LogGroup: { Ref: string } };
      const filters = Object.values(
        template.findResources('AWS::Logs::MetricFilter', {
          Properties: { LogGroupName: { Ref: LogGroup.Ref } },
        }),
      );

      expect(
        filters.map(({ Properties }) => [
          Properties.MetricTransformations[0].MetricName,
          Properties.FilterPattern,
        ]),
      ).toEqual([
        ['VersionRequests', '{ $.message = "request" }'],
        ['VersionFailures', '{ ($.message = "request") && ($.outcome = "error") }'],
      ]);
      for (const { Properties } of filters) {
        expect(Properties.MetricTransformations).toEqual([
          {
            MetricNamespace: 'PlantStore',
            MetricName: expect.any(String),
            MetricValue: '1',
            Dimensions: [
              { Key: 'Service', Value: '$.Service' },
              { Key: 'FunctionVersion', Value: '$.functionVersion' },
            ],
          },
        ]);
      }
    },
  );

  it('counts each function log group once: two filters per operation', () => {
    template.resourceCountIs('AWS::Logs::MetricFilter', 2 * operations.length);
  });

  it.each(
    operations.flatMap((operation) =>
      ['DeployedVersionErrors', 'DeployedVersionFailureRate'].map(
        (name) => [operation, name] as const,
      ),
    ),
  )(
    '%s: %s is named for the operation and the version, so each new version gets a fresh alarm',
    (operation, name) => {
      const [versionId] = versionOf(operation);
      const [, alarm] = alarmOf(operation, name);
      const nameFor = (version: string) =>
        evaluateCfn(template.toJSON() as CfnTemplate, alarm.Properties.AlarmName, {
          region: 'eu-west-1',
          accountId: '123456789012',
          resources: { [versionId]: { attributes: { Version: version } } },
        });

      // A new AlarmName makes CloudFormation replace the alarm: the new one starts without state.
      expect(nameFor('7')).toBe(`PlantStore-test-${name}-${operation.name}-7`);
      expect(nameFor('8')).not.toBe(nameFor('7'));
    },
  );

  it.each(operations)(
    "start counting $name before the first line of its new version, the pre-traffic check's included",
    (operation) => {
      const [, alarm] = alarmOf(operation, 'DeployedVersionFailureRate');
      const filterIds = ['VersionRequests', 'VersionFailures'].map(
        (name) =>
          operationResource(template, 'AWS::Logs::MetricFilter', operation, name, 'Alarms')[0],
      );

      expect(alarm.DependsOn).toEqual(expect.arrayContaining(filterIds));
    },
  );
});

describe('OperationalAlarms notifications', () => {
  it('notifies no one unless alarmEmail is given', () => {
    template.resourceCountIs('AWS::SNS::Topic', 0);
    for (const alarm of alarms()) expect(alarm.Properties.AlarmActions).toBeUndefined();
  });

  it('with alarmEmail, e-mails ALARM of every alarm, and OK of all but the rollback alarms, through one TLS-only topic', () => {
    withEmail.resourceCountIs('AWS::SNS::Topic', 1);
    withEmail.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'oncall@example.com',
    });
    const topic = { Ref: Object.keys(withEmail.findResources('AWS::SNS::Topic'))[0] };
    withEmail.resourceCountIs('AWS::SNS::TopicPolicy', 1);
    withEmail.hasResourceProperties('AWS::SNS::TopicPolicy', {
      Topics: [topic],
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Deny',
            Condition: { Bool: { 'aws:SecureTransport': 'false' } },
          }),
        ]),
      },
    });
    const withActions = Object.entries(withEmail.findResources('AWS::CloudWatch::Alarm')) as [
      string,
      Resource,
    ][];
    expect(withActions).toHaveLength(alarmCount);
    const isRollback = (id: string) => id.includes('DeployedVersion');
    expect(withActions.filter(([id]) => isRollback(id))).toHaveLength(2 * operations.length);
    for (const [id, alarm] of withActions) {
      expect(alarm.Properties.AlarmActions).toStrictEqual([topic]);
      // A rollback alarm is new with each version: its first OK would e-mail every release.
      expect(alarm.Properties.OKActions).toStrictEqual(isRollback(id) ? undefined : [topic]);
    }
  });

  it("with alarmEmail, lets CloudWatch publish for this account's alarms, which the topic policy would otherwise forbid", () => {
    const topic = { Ref: Object.keys(withEmail.findResources('AWS::SNS::Topic'))[0] };
    withEmail.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          {
            Sid: Match.anyValue(),
            Effect: 'Allow',
            Principal: { Service: 'cloudwatch.amazonaws.com' },
            Action: 'sns:Publish',
            Resource: topic,
            Condition: {
              StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
              ArnLike: {
                'aws:SourceArn': {
                  'Fn::Join': [
                    '',
                    [
                      'arn:',
                      { Ref: 'AWS::Partition' },
                      ':cloudwatch:',
                      { Ref: 'AWS::Region' },
                      ':',
                      { Ref: 'AWS::AccountId' },
                      ':alarm:*',
                    ],
                  ],
                },
              },
            },
          },
        ]),
      },
    });
  });
});
