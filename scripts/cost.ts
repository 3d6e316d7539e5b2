// `npm run cost`: monthly floor and per-operation cost from the stage's template (docs/cost.md).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { App } from 'aws-cdk-lib';
import { accessLog } from '../functions/http/access-log.ts';
import type { Logger } from '../functions/log.ts';
import { requestPath } from '../functions/operation.ts';
import { countersOf } from '../functions/operation-edge.ts';
import { checksOf, type Operation, operations } from '../functions/operations.ts';
import { projectRoot } from '../infra/bundling/bundling.ts';
import { operationConstructId } from '../infra/constructs/operation-function.ts';
import { addStacks } from '../infra/plant-store-app.ts';
import { prices } from './prices.ts';

export const assumptions = {
  /** Billed duration of a warm request: stated, not measured (the `Duration` metric is). */
  lambdaDurationMs: 25,
  platformLogBytes: 700,
  accessLogValueBytes: 16,
  requestsPerMonth: 1_000_000,
  logRetentionMonths: 1,
  /** Each long poll of Lambda's SQS pollers is a billed SQS request. */
  sqsLongPollSeconds: 20,
} as const;

const hoursPerMonth = 730;
const secondsPerMonth = hoursPerMonth * 3600;

type Resource = { readonly Type: string; readonly Properties?: Record<string, unknown> };
export type CfnTemplate = { readonly Resources: Readonly<Record<string, Resource>> };

function resourcesOf(template: CfnTemplate, type: string): [string, Resource][] {
  return Object.entries(template.Resources).filter(([, resource]) => resource.Type === type);
}

function alarmMetrics(alarm: Resource): number {
  const metrics = alarm.Properties?.Metrics as { MetricStat?: unknown }[] | undefined;
  if (metrics === undefined) return 1;
  return metrics.filter((metric) => metric.MetricStat !== undefined).length;
}

const asText = (value: unknown): string => {
  const join = (value as { 'Fn::Join'?: [string, unknown[]] })['Fn::Join'];
  return typeof value === 'string' ? value : join ? join[1].map(asText).join(join[0]) : 'x';
};

function dashboardMetrics(dashboard: Resource): number {
  const body = JSON.parse(asText(dashboard.Properties?.DashboardBody)) as {
    widgets: { properties?: { metrics?: unknown[][] } }[];
  };
  return body.widgets
    .flatMap((widget) => widget.properties?.metrics ?? [])
    .filter(
      (line) =>
        !line.some((part) => typeof part === 'object' && part !== null && 'expression' in part),
    ).length;
}

function customMetrics(template: CfnTemplate): number {
  const fromRequests = operations.reduce(
    (sum, operation) => sum + new Set(Object.values(countersOf(operation))).size + 1,
    0,
  );
  const fromFilters = resourcesOf(template, 'AWS::Logs::MetricFilter').reduce(
    (sum, [, filter]) =>
      sum + ((filter.Properties?.MetricTransformations as unknown[]) ?? []).length,
    0,
  );
  const webhook = resourcesOf(template, 'AWS::Pipes::Pipe').length > 0 ? 4 : 0;
  return fromRequests + fromFilters + webhook;
}

export function monthlyFloor(template: CfnTemplate) {
  const { cloudwatch, cognito, secretsManager, sqs } = prices;
  const alarms = resourcesOf(template, 'AWS::CloudWatch::Alarm');
  const alarmMetricCount = alarms.reduce((sum, [, alarm]) => sum + alarmMetrics(alarm), 0);
  const dashboards = resourcesOf(template, 'AWS::CloudWatch::Dashboard');
  const drawn = dashboards.map(([, dashboard]) => dashboardMetrics(dashboard));
  const custom = customMetrics(template);
  const secrets = resourcesOf(template, 'AWS::SecretsManager::Secret').length;
  const machineClients = resourcesOf(template, 'AWS::Cognito::UserPoolClient').filter(
    ([, client]) =>
      ((client.Properties?.AllowedOAuthFlows as string[]) ?? []).includes('client_credentials'),
  ).length;
  const queues = resourcesOf(template, 'AWS::SQS::Queue').length;
  const pollers = resourcesOf(template, 'AWS::Lambda::EventSourceMapping')
    .map(
      ([, mapping]) =>
        (mapping.Properties?.ScalingConfig as { MaximumConcurrency?: number })?.MaximumConcurrency,
    )
    .filter((concurrency) => concurrency !== undefined)
    // Lambda keeps five pollers on a queue with a maximum concurrency, at most that many.
    .reduce((sum, concurrency) => sum + Math.min(5, concurrency), 0);
  const polls = (pollers * secondsPerMonth) / assumptions.sqsLongPollSeconds;
  const logGroups = resourcesOf(template, 'AWS::Logs::LogGroup').length;

  const lines = [
    {
      item: 'CloudWatch alarms',
      count: alarms.length,
      monthly: alarmMetricCount * cloudwatch.alarmMetricMonth,
      note: `${alarmMetricCount} alarm metrics at $${cloudwatch.alarmMetricMonth} (a math alarm pays for each metric it reads)`,
    },
    {
      item: 'CloudWatch dashboard',
      count: dashboards.length,
      monthly: dashboards.length * cloudwatch.dashboardMonth,
      note: `${drawn.join(', ')} metrics drawn; the free tier's 3 dashboards hold ${cloudwatch.freeTierDashboardMetrics} each`,
    },
    {
      item: 'Custom metrics',
      count: custom,
      monthly: 0,
      note: `billed by the hours they get data: $0 idle, up to $${(custom * cloudwatch.customMetricMonth).toFixed(2)} with traffic every hour`,
    },
    {
      item: 'Secrets Manager secret',
      count: secrets,
      monthly: secrets * secretsManager.secretMonth,
      note: 'the webhook signing secret; kept after the webhook is removed',
    },
    {
      item: 'Cognito machine client',
      count: machineClients,
      monthly: machineClients * cognito.machineClientMonth,
      note: 'a client-credentials app client; tokens are per request, below',
    },
    {
      item: 'SQS queues',
      count: queues,
      monthly: (polls / 1e6) * sqs.requestsPerMillion,
      note: `idle queues cost nothing; the deliverer's ${pollers} long polls of ${assumptions.sqsLongPollSeconds} s make ${Math.round(polls).toLocaleString('en')} requests`,
    },
    {
      item: 'Log storage',
      count: logGroups,
      monthly: 0,
      note: `log groups; $${cloudwatch.logStorageGbMonth}/GB-month of what they hold, nothing idle`,
    },
  ];
  return { lines, total: lines.reduce((sum, line) => sum + line.monthly, 0) };
}

const readAction = /^dynamodb:(GetItem|Query|Scan|BatchGetItem)$/;
const writeAction = /^dynamodb:(PutItem|UpdateItem|DeleteItem)$/;

/** Each declared action once: an upper bound, as some run only on a conflict. */
export function requestUnits(operation: Pick<Operation, 'dynamodbActions'>) {
  const actions: readonly string[] = operation.dynamodbActions;
  const unpriced = actions.find((action) => !readAction.test(action) && !writeAction.test(action));
  // A new kind of call is priced here first, rather than counted as free.
  if (unpriced !== undefined)
    throw new Error(`no price for ${unpriced}: add it to scripts/cost.ts`);
  return {
    readUnits: actions.filter((action) => readAction.test(action)).length,
    writeUnits: actions.filter((action) => writeAction.test(action)).length,
  };
}

export function sampledShare(requestsPerMonth: number): number {
  const perSecond = requestsPerMonth / secondsPerMonth;
  if (perSecond <= prices.xray.reservoirPerSecond) return 1;
  const reservoir = prices.xray.reservoirPerSecond / perSecond;
  return reservoir + prices.xray.fixedRate * (1 - reservoir);
}

function accessLogBytes(template: CfnTemplate): number {
  const [[, stage] = []] = resourcesOf(template, 'AWS::ApiGatewayV2::Stage');
  const format = (stage?.Properties?.AccessLogSettings as { Format?: string })?.Format ?? '';
  return Buffer.byteLength(
    format.replace(/\$context\.[A-Za-z.]+/g, 'x'.repeat(assumptions.accessLogValueBytes)),
  );
}

function memoryOf(template: CfnTemplate, operation: Pick<Operation, 'name'>): number {
  const prefix = `${operationConstructId(operation)}Function`;
  const found = resourcesOf(template, 'AWS::Lambda::Function').filter(([id]) =>
    id.startsWith(prefix),
  );
  if (found.length !== 1)
    throw new Error(`expected one function ${prefix}*, found ${found.length}`);
  return Number(found[0]?.[1].Properties?.MemorySize ?? 128);
}

export function perMillion(
  template: CfnTemplate,
  measured: { readonly requestLineBytes: Readonly<Record<string, number>> },
) {
  const { apiGateway, lambda, dynamodb, cloudwatch, xray } = prices;
  const accessLine = accessLogBytes(template);
  return operations.map((operation) => {
    const memoryMb = memoryOf(template, operation);
    const units = requestUnits(operation);
    const requestLine = measured.requestLineBytes[operation.name];
    if (requestLine === undefined)
      throw new Error(`no request line measured for ${operation.name}`);
    const logBytes = requestLine + assumptions.platformLogBytes + accessLine;
    const parts = {
      apiGateway: apiGateway.httpRequestsPerMillion,
      lambda:
        lambda.requestsPerMillion +
        1e6 * (memoryMb / 1024) * (assumptions.lambdaDurationMs / 1000) * lambda.gbSecond,
      dynamodb:
        units.readUnits * dynamodb.readUnitsPerMillion +
        units.writeUnits * dynamodb.writeUnitsPerMillion,
      logs:
        ((1e6 * logBytes) / 1024 ** 3) *
        (cloudwatch.logIngestionGb + assumptions.logRetentionMonths * cloudwatch.logStorageGbMonth),
      xray: sampledShare(assumptions.requestsPerMonth) * xray.tracesRecordedPerMillion,
    };
    const total = Object.values(parts).reduce((sum, part) => sum + part, 0);
    return { operation: operation.name, ...parts, total, memoryMb, ...units, logBytes };
  });
}

export function tokenCost(template: CfnTemplate) {
  const [[, client] = []] = resourcesOf(template, 'AWS::Cognito::UserPoolClient');
  if (client === undefined) return undefined;
  const validity = Number(client.Properties?.AccessTokenValidity ?? 60);
  const unit =
    (client.Properties?.TokenValidityUnits as { AccessToken?: string })?.AccessToken ?? 'minutes';
  const cacheMinutes = unit === 'hours' ? validity * 60 : validity;
  return {
    cacheMinutes,
    perClientMonth: ((hoursPerMonth * 60) / cacheMinutes) * prices.cognito.tokenRequest,
  };
}

export function requestLineBytes(): Record<string, number> {
  return Object.fromEntries(
    operations.map((operation) => {
      let line = '';
      const write: Logger = (level, message, fields) => {
        line = JSON.stringify({ timestamp: new Date().toISOString(), level, message, ...fields });
      };
      const step = accessLog(write, 'plant-store', countersOf(operation));
      const { sample } = checksOf(operation);
      const request = {
        event: {
          rawPath: requestPath(operation, sample.request('1234567890123456789')),
          requestContext: { requestId: 'JKJaXmPLvHcESHA=', http: { method: operation.method } },
        },
        context: {
          awsRequestId: 'local-request-1',
          outcome: Object.keys(operation.outcomes)[0],
          caller: { clientId: 'test-client' },
          storeLatencyMs: 12.345,
        },
        response: { statusCode: sample.status },
      } as never;
      step.before?.(request);
      step.after?.(request);
      return [operation.name, Buffer.byteLength(`${line}\n`)];
    }),
  );
}

export function contextOf(args: readonly string[]): Record<string, string> {
  const { values } = parseArgs({
    args: [...args],
    options: { context: { type: 'string', short: 'c', multiple: true } },
    strict: true,
  });
  return Object.fromEntries(
    (values.context ?? []).map((pair) => {
      const at = pair.indexOf('=');
      if (at < 1) throw new Error(`-c takes key=value: ${pair}`);
      return [pair.slice(0, at), pair.slice(at + 1)];
    }),
  );
}

const dollars = (value: number, width: number) => `$${value.toFixed(2)}`.padStart(width);

if (import.meta.main) {
  // Only the template is read: no bundling, no validation.
  const cdkJson = JSON.parse(readFileSync(path.join(projectRoot, 'cdk.json'), 'utf8'));
  const app = new App({
    context: {
      ...cdkJson.context,
      ...contextOf(process.argv.slice(2)),
      'aws:cdk:bundling-stacks': [],
    },
    builtinCloudFormationValidation: false,
  });
  const { stackName } = addStacks(app).stack;
  const template = app.synth().getStackByName(stackName).template as CfnTemplate;
  const floor = monthlyFloor(template);
  const { requestsPerMonth: volume } = assumptions;
  const tokens = tokenCost(template);
  console.log(
    [
      `${stackName}: AWS list prices of ${prices.region} as of ${prices.date}, no free tier (scripts/prices.ts)`,
      '\nMonthly floor, no requests:',
      ...floor.lines.map(
        (line) =>
          `  ${line.item.padEnd(24)} ${String(line.count).padStart(3)}  ${dollars(line.monthly, 7)}  ${line.note}`,
      ),
      `  ${'Total'.padEnd(24)}      ${dollars(floor.total, 7)}`,
      '\nAlarms counted (metrics each):',
      ...resourcesOf(template, 'AWS::CloudWatch::Alarm').map(
        ([id, alarm]) => `  ${id} (${alarmMetrics(alarm)})`,
      ),
      `\nPer million requests (Lambda ${assumptions.lambdaDurationMs} ms billed; X-Ray at ${volume.toLocaleString('en')} requests a month, ${Math.round(sampledShare(volume) * 100)} % sampled):`,
      `  ${'operation'.padEnd(16)} ${['API', 'Lambda', 'DynamoDB', 'logs', 'X-Ray', 'total'].map((name) => name.padStart(8)).join(' ')}  detail`,
      ...perMillion(template, { requestLineBytes: requestLineBytes() }).map(
        ({ operation, memoryMb, readUnits, writeUnits, logBytes, ...figures }) => {
          // Each part, then the total, in the order perMillion writes them.
          const cells = Object.values(figures).map((figure) => dollars(figure, 8));
          return `  ${operation.padEnd(16)} ${cells.join(' ')}  ${memoryMb} MB, ${readUnits} RRU + ${writeUnits} WRU, ${logBytes} log bytes`;
        },
      ),
      ...(tokens === undefined
        ? []
        : [
            `\nCognito tokens: ${dollars(tokens.perClientMonth, 0)} a month per client that caches its token for its ${tokens.cacheMinutes} minutes; ${dollars(1e6 * prices.cognito.tokenRequest, 0)} per million requests for a client that asks for one per request.`,
          ]),
      `\nSources: ${prices.sources.join(' ')}`,
    ].join('\n'),
  );
}
