/**
 * `npm run cost [-- -c stage=prod]`: what the stage costs a month before any request, line by
 * line, and what each operation costs per million requests, read from the template `cdk synth`
 * makes of that stage (offline, in this process: bundling and validation off). The prices are
 * in scripts/prices.ts; docs/cost.md explains the figures and what moves them.
 */
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

/** What a request is assumed to cost in time and size where the template cannot say. */
export const assumptions = {
  /**
   * Billed duration of a warm request: one or two DynamoDB calls in the region and the handler's
   * own work. Stated, not measured on AWS: the function's `Duration` metric gives the real one.
   */
  lambdaDurationMs: 25,
  /** Lambda's own JSON lines per invocation (`platform.start`, `platform.report`). */
  platformLogBytes: 700,
  /** A value in the API's access log line where the format has a `$context` variable. */
  accessLogValueBytes: 16,
  /** The volume the X-Ray share is figured at: one million requests spread over a month. */
  requestsPerMonth: 1_000_000,
  /** Months of log storage a line is paid for: the log groups keep a month. */
  logRetentionMonths: 1,
  /** Lambda's SQS pollers long-poll for this long; each poll is a billed SQS request. */
  sqsLongPollSeconds: 20,
} as const;

const hoursPerMonth = 730;
const secondsPerMonth = hoursPerMonth * 3600;

export type FloorLine = {
  readonly item: string;
  readonly count: number;
  readonly monthly: number;
  readonly note: string;
};

type Resource = { readonly Type: string; readonly Properties?: Record<string, unknown> };
export type CfnTemplate = { readonly Resources: Readonly<Record<string, Resource>> };

function resourcesOf(template: CfnTemplate, type: string): [string, Resource][] {
  return Object.entries(template.Resources).filter(([, resource]) => resource.Type === type);
}

/** The metrics an alarm reads, which CloudWatch bills it for: one, or each of a math alarm's. */
export function alarmMetrics(alarm: Resource): number {
  const metrics = alarm.Properties?.Metrics as { MetricStat?: unknown }[] | undefined;
  if (metrics === undefined) return 1;
  return metrics.filter((metric) => metric.MetricStat !== undefined).length;
}

/** A template value as text, each intrinsic in an `Fn::Join` as a placeholder. */
const asText = (value: unknown): string => {
  const join = (value as { 'Fn::Join'?: [string, unknown[]] })['Fn::Join'];
  return typeof value === 'string' ? value : join ? join[1].map(asText).join(join[0]) : 'x';
};

/** The metrics each widget of a dashboard's body draws. */
export function dashboardMetrics(dashboard: Resource): number {
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

/**
 * The custom metrics the stack's code and metric filters write: per operation one counter per
 * outcome and the store latency (functions/http/request-metrics.ts), each metric filter's, and the
 * deliverer's counters and latency when the webhook is on.
 */
export function customMetrics(template: CfnTemplate): number {
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

/** The stage's cost a month with no request at all, line by line. */
export function monthlyFloor(template: CfnTemplate): { lines: FloorLine[]; total: number } {
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

  const lines: FloorLine[] = [
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

export type RequestMeasurements = {
  /** Bytes of the function's own request line, by operation name. */
  readonly requestLineBytes: Readonly<Record<string, number>>;
};

export type PerMillion = {
  readonly operation: string;
  readonly apiGateway: number;
  readonly lambda: number;
  readonly dynamodb: number;
  readonly logs: number;
  readonly xray: number;
  readonly total: number;
  readonly memoryMb: number;
  readonly readUnits: number;
  readonly writeUnits: number;
  readonly logBytes: number;
};

const readActions = new Set([
  'dynamodb:GetItem',
  'dynamodb:Query',
  'dynamodb:Scan',
  'dynamodb:BatchGetItem',
]);
const writeActions = new Set(['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem']);

/**
 * The request units of one request: each declared action once (an upper bound: some run only on a
 * conflict), a strongly consistent read of up to 4 KB one read unit, a write of up to 1 KB one
 * write unit.
 */
export function requestUnits(operation: Pick<Operation, 'dynamodbActions'>): {
  readUnits: number;
  writeUnits: number;
} {
  const actions: readonly string[] = operation.dynamodbActions;
  const unpriced = actions.find((action) => !readActions.has(action) && !writeActions.has(action));
  // A new kind of call is priced here first, rather than counted as free.
  if (unpriced !== undefined)
    throw new Error(`no price for ${unpriced}: add it to scripts/cost.ts`);
  return {
    readUnits: actions.filter((action) => readActions.has(action)).length,
    writeUnits: actions.filter((action) => writeActions.has(action)).length,
  };
}

/** The share of requests X-Ray's default rule records at `requestsPerMonth`, spread evenly. */
export function sampledShare(requestsPerMonth: number): number {
  const perSecond = requestsPerMonth / secondsPerMonth;
  if (perSecond <= prices.xray.reservoirPerSecond) return 1;
  const reservoir = prices.xray.reservoirPerSecond / perSecond;
  return reservoir + prices.xray.fixedRate * (1 - reservoir);
}

/** The API access log line's size: the template's format with a typical value for each variable. */
export function accessLogBytes(template: CfnTemplate): number {
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

/** What a million requests of each operation cost, in dollars, by the parts that bill them. */
export function perMillion(template: CfnTemplate, measured: RequestMeasurements): PerMillion[] {
  const { apiGateway, lambda, dynamodb, cloudwatch, xray } = prices;
  const accessLine = accessLogBytes(template);
  return operations.map((operation) => {
    const memoryMb = memoryOf(template, operation);
    const { readUnits, writeUnits } = requestUnits(operation);
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
        readUnits * dynamodb.readUnitsPerMillion + writeUnits * dynamodb.writeUnitsPerMillion,
      logs:
        ((1e6 * logBytes) / 1024 ** 3) *
        (cloudwatch.logIngestionGb + assumptions.logRetentionMonths * cloudwatch.logStorageGbMonth),
      xray: sampledShare(assumptions.requestsPerMonth) * xray.tracesRecordedPerMillion,
    };
    const total = Object.values(parts).reduce((sum, part) => sum + part, 0);
    return {
      operation: operation.name,
      ...parts,
      total,
      memoryMb,
      readUnits,
      writeUnits,
      logBytes,
    };
  });
}

/** What the client-credentials tokens cost: per client caching each token, and per request without. */
export function tokenCost(
  template: CfnTemplate,
): { cacheMinutes: number; perClientMonth: number } | undefined {
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

/**
 * The size of each operation's own request line: what the access log step
 * (functions/http/access-log.ts) writes for its sample request and its first outcome, the usual
 * success, with the values a local run logs. On AWS the function's name as `Service`, a UUID
 * request id, the version and the X-Ray trace id add to it.
 */
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

/** `-c key=value` pairs, as `cdk synth` takes them. */
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

const dollars = (value: number) => `$${value.toFixed(2)}`;

function main(): void {
  const context = contextOf(process.argv.slice(2));
  // The app `cdk synth` builds from cdk.json's context, without bundling or validation: only the
  // template is read.
  const cdkJson = JSON.parse(readFileSync(path.join(projectRoot, 'cdk.json'), 'utf8')) as {
    context: Record<string, unknown>;
  };
  const app = new App({
    context: { ...cdkJson.context, ...context, 'aws:cdk:bundling-stacks': [] },
    builtinCloudFormationValidation: false,
  });
  const { stack } = addStacks(app);
  const { stackName } = stack;
  const template = app.synth().getStackByName(stackName).template as CfnTemplate;

  console.log(
    `${stackName}: AWS list prices of ${prices.region} as of ${prices.date}, no free tier (scripts/prices.ts)`,
  );
  console.log('\nMonthly floor, no requests:');
  const floor = monthlyFloor(template);
  for (const line of floor.lines) {
    console.log(
      `  ${line.item.padEnd(24)} ${String(line.count).padStart(3)}  ${dollars(line.monthly).padStart(7)}  ${line.note}`,
    );
  }
  console.log(`  ${'Total'.padEnd(24)}      ${dollars(floor.total).padStart(7)}`);

  console.log('\nAlarms counted (metrics each):');
  for (const [id, alarm] of resourcesOf(template, 'AWS::CloudWatch::Alarm')) {
    console.log(`  ${id} (${alarmMetrics(alarm)})`);
  }

  const measured = { requestLineBytes: requestLineBytes() };
  console.log(
    `\nPer million requests (Lambda ${assumptions.lambdaDurationMs} ms billed; X-Ray at ${assumptions.requestsPerMonth.toLocaleString('en')} requests a month, ${Math.round(sampledShare(assumptions.requestsPerMonth) * 100)} % sampled):`,
  );
  console.log(
    `  ${'operation'.padEnd(16)} ${['API', 'Lambda', 'DynamoDB', 'logs', 'X-Ray', 'total'].map((name) => name.padStart(8)).join(' ')}  detail`,
  );
  for (const each of perMillion(template, measured)) {
    const figures = [each.apiGateway, each.lambda, each.dynamodb, each.logs, each.xray, each.total];
    console.log(
      `  ${each.operation.padEnd(16)} ${figures.map((figure) => dollars(figure).padStart(8)).join(' ')}  ${each.memoryMb} MB, ${each.readUnits} RRU + ${each.writeUnits} WRU, ${each.logBytes} log bytes`,
    );
  }
  const tokens = tokenCost(template);
  if (tokens !== undefined) {
    console.log(
      `\nCognito tokens: ${dollars(tokens.perClientMonth)} a month per client that caches its token for its ${tokens.cacheMinutes} minutes; ${dollars(1e6 * prices.cognito.tokenRequest)} per million requests for a client that asks for one per request.`,
    );
  }
  console.log(`\nSources: ${prices.sources.join(' ')}`);
}

if (import.meta.main) main();
