import { describe, expect, it } from 'vitest';
import { operations } from '../../functions/operations.ts';
import { serverFailureCounters } from '../../infra/operation-outcomes.ts';
import {
  assumptions,
  type CfnTemplate,
  contextOf,
  monthlyFloor,
  perMillion,
  requestLineBytes,
  requestUnits,
  sampledShare,
  tokenCost,
} from '../../scripts/cost.ts';
import { prices } from '../../scripts/prices.ts';
import { synthStack } from '../support/synth.ts';

const webhookUrl = 'https://hooks.example.com/plant/webhook';
const templateOf = (options: Parameters<typeof synthStack>[0] = {}) =>
  synthStack(options).template.toJSON() as CfnTemplate;
const lineOf = (template: CfnTemplate, item: string) => {
  const found = monthlyFloor(template).lines.find((line) => line.item === item);
  if (found === undefined) throw new Error(`no line ${item}`);
  return found;
};
const countOf = (template: CfnTemplate, type: string) =>
  Object.values(template.Resources).filter((resource) => resource.Type === type).length;

describe('npm run cost: the monthly floor', () => {
  it('counts every alarm of the template, and the metrics each one reads', () => {
    const template = templateOf();
    const alarms = lineOf(template, 'CloudWatch alarms');
    const tableCalls = new Set(operations.flatMap(({ dynamodbActions }) => dynamodbActions)).size;
    // The API's 5xx rate reads two, its latency one, the table's throttles one per call; each
    // operation: errors, throttles, its 5xx rate (each server failure and the invocations), and
    // the rollback pair (errors, and the version's requests and failures).
    const metrics =
      2 + 1 + tableCalls + operations.length * (1 + 1 + serverFailureCounters.length + 1 + 1 + 2);

    expect(alarms.count).toBe(countOf(template, 'AWS::CloudWatch::Alarm'));
    expect(alarms.monthly).toBeCloseTo(metrics * prices.cloudwatch.alarmMetricMonth, 6);
  });

  it("prices the dashboard, and says when it draws more than the free tier's metrics", () => {
    const dashboard = lineOf(templateOf(), 'CloudWatch dashboard');

    expect(dashboard.count).toBe(1);
    expect(dashboard.monthly).toBe(prices.cloudwatch.dashboardMonth);
    expect(Number(/^(\d+) metrics drawn/.exec(dashboard.note)?.[1])).toBeGreaterThan(
      prices.cloudwatch.freeTierDashboardMetrics,
    );
  });

  it('adds the secret, the queues and their pollers with the webhook, and only with it', () => {
    const without = templateOf();
    const withWebhook = templateOf({ webhookUrl });

    expect(lineOf(without, 'Secrets Manager secret')).toMatchObject({ count: 0, monthly: 0 });
    expect(lineOf(without, 'SQS queues')).toMatchObject({ count: 0, monthly: 0 });
    expect(lineOf(withWebhook, 'Secrets Manager secret')).toMatchObject({
      count: 1,
      monthly: prices.secretsManager.secretMonth,
    });
    const queues = lineOf(withWebhook, 'SQS queues');
    expect(queues.count).toBe(countOf(withWebhook, 'AWS::SQS::Queue'));
    expect(queues.monthly).toBeGreaterThan(0);
    expect(lineOf(withWebhook, 'Custom metrics').count).toBeGreaterThan(
      lineOf(without, 'Custom metrics').count,
    );
    expect(monthlyFloor(withWebhook).total).toBeGreaterThan(monthlyFloor(without).total);
  });

  it('charges the Cognito machine client only where the stack creates one', () => {
    // An external issuer's stack, which creates no Cognito resources (plant-store-stack.test.ts).
    const external: CfnTemplate = {
      Resources: Object.fromEntries(
        Object.entries(templateOf().Resources).filter(
          ([, resource]) => !resource.Type.startsWith('AWS::Cognito::'),
        ),
      ),
    };

    expect(lineOf(templateOf(), 'Cognito machine client')).toMatchObject({
      count: 1,
      monthly: prices.cognito.machineClientMonth,
    });
    expect(lineOf(external, 'Cognito machine client')).toMatchObject({ count: 0, monthly: 0 });
    expect(tokenCost(external)).toBeUndefined();
  });

  it('adds up its lines', () => {
    const { lines, total } = monthlyFloor(templateOf({ webhookUrl }));
    expect(total).toBeCloseTo(
      lines.reduce((sum, line) => sum + line.monthly, 0),
      9,
    );
  });
});

describe('npm run cost: per million requests', () => {
  const measured = {
    requestLineBytes: Object.fromEntries(operations.map(({ name }) => [name, 500])),
  };

  it("prices every operation of the list at its function's memory and declared DynamoDB calls", () => {
    const rows = perMillion(templateOf(), measured);

    expect(rows.map(({ operation }) => operation)).toEqual(operations.map(({ name }) => name));
    for (const operation of operations) {
      const row = rows.find((each) => each.operation === operation.name);
      const { readUnits, writeUnits } = requestUnits(operation);
      expect(readUnits + writeUnits, operation.name).toBe(operation.dynamodbActions.length);
      expect(row).toMatchObject({
        memoryMb: 1024,
        apiGateway: prices.apiGateway.httpRequestsPerMillion,
        dynamodb:
          readUnits * prices.dynamodb.readUnitsPerMillion +
          writeUnits * prices.dynamodb.writeUnitsPerMillion,
      });
      expect(row?.logBytes).toBeGreaterThan(500 + assumptions.platformLogBytes);
    }
  });

  it('refuses to price a DynamoDB call it has no price for', () => {
    expect(() =>
      requestUnits({ dynamodbActions: ['dynamodb:TransactWriteItems'] as never }),
    ).toThrow(/no price for dynamodb:TransactWriteItems/);
  });

  it("records every request at a million a month, X-Ray's reservoir covering them, and a share beyond it", () => {
    expect(sampledShare(1_000_000)).toBe(1);
    const share = sampledShare(100_000_000);
    expect(share).toBeGreaterThan(prices.xray.fixedRate);
    expect(share).toBeLessThan(0.1);
  });

  it("prices the tokens of a client that caches each for the client's token lifetime", () => {
    expect(tokenCost(templateOf())).toEqual({
      cacheMinutes: 60,
      perClientMonth: 730 * prices.cognito.tokenRequest,
    });
  });

  it("sizes every operation's request line as the access log writes it", () => {
    const sizes = requestLineBytes();

    expect(Object.keys(sizes)).toEqual(operations.map(({ name }) => name));
    for (const size of Object.values(sizes)) {
      expect(size).toBeGreaterThan(200);
      expect(size).toBeLessThan(4096);
    }
  });

  it('reads -c key=value pairs as cdk synth does', () => {
    expect(
      contextOf(['-c', 'stage=prod', '--context', 'webhookUrl=https://h.example.com/?a=b']),
    ).toEqual({
      stage: 'prod',
      webhookUrl: 'https://h.example.com/?a=b',
    });
    expect(() => contextOf(['-c', 'stage'])).toThrow(/key=value/);
  });
});
