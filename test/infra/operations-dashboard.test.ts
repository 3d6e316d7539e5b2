import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { embeddedMetrics, metricsNamespace } from '../../functions/http/request-metrics.ts';
import { countersOf } from '../../functions/operation-edge.ts';
import { type Operation, operations, routeKey } from '../../functions/operations.ts';
import {
  onlyResource,
  operationResource,
  renderTemplateValue,
  synthStack,
} from '../support/synth.ts';

let template: Template;
let widgets: Widget[];

type Widget = {
  readonly type: string;
  readonly properties: {
    readonly title?: string;
    readonly markdown?: string;
    readonly query?: string;
    readonly metrics?: readonly (readonly unknown[])[];
  };
};

beforeAll(() => {
  template = synthStack().template;
  const [, dashboard] = onlyResource(template, 'AWS::CloudWatch::Dashboard');
  widgets = (
    JSON.parse(renderTemplateValue(dashboard.Properties.DashboardBody)) as { widgets: Widget[] }
  ).widgets;
});

const body = () => JSON.stringify(widgets);
const functionOf = (operation: Operation) =>
  operationResource(template, 'AWS::Lambda::Function', operation, 'Function');
/** The operation's row: the widgets whose title starts with its route. */
const rowOf = (operation: Operation) =>
  widgets.filter((widget) => widget.properties.title?.startsWith(`${routeKey(operation)}: `));

/** Every metric name the operation's request lines can carry, as the code that writes them names it. */
function handlerMetricNames(operation: Operation): string[] {
  const names = Object.values(countersOf(operation)).flatMap((counter) => {
    const line = embeddedMetrics({ counter, service: 'any', storeLatencyMs: 1 }, 0) as {
      _aws: { CloudWatchMetrics: { Metrics: { Name: string }[] }[] };
    };
    return line._aws.CloudWatchMetrics.flatMap(({ Metrics }) => Metrics.map(({ Name }) => Name));
  });
  return [...new Set(names)];
}

describe('OperationsDashboard', () => {
  it.each([
    ['the API requests, 4xx and 5xx', ['"Count"', '"4xx"', '"5xx"']],
    ['the API latency p50 and p99', ['"Latency"', '"p50"', '"p99"']],
    ['the cold starts from the REPORT lines', ['platform.report', 'initDurationMs']],
    [
      'the table capacity and the throttles of every call the functions make, each filled with 0',
      [
        'ConsumedWriteCapacityUnits',
        'ThrottledRequests',
        [...new Set(operations.flatMap(({ dynamodbActions }) => dynamodbActions))]
          .map((action) => `FILL(${action.replace(/^dynamodb:/, '').toLowerCase()}, 0)`)
          .join(' + '),
      ],
    ],
  ])('shows %s', (_what, needles) => {
    for (const needle of needles) expect(body()).toContain(needle);
  });

  it('names every route in its heading', () => {
    const [heading] = widgets;

    for (const operation of operations) {
      expect(heading?.properties.markdown).toContain(`\`${routeKey(operation)}\``);
    }
  });

  it("reads every function's cold starts, from each one's log group", () => {
    const coldStarts = widgets.filter((widget) => widget.type === 'log');

    expect(coldStarts).toHaveLength(1);
    for (const operation of operations) {
      const [, fn] = functionOf(operation);
      const { LogGroup } = fn.Properties.LoggingConfig as { LogGroup: { Ref: string } };
      expect(coldStarts[0]?.properties.query).toContain(`SOURCE 'Ref(${LogGroup.Ref})'`);
      // The REPORT lines the widget reads.
      expect(fn.Properties.LoggingConfig).toMatchObject({ SystemLogLevel: 'INFO' });
    }
  });

  it.each(operations)(
    '$name has a row of its own: invocations, errors, throttles, duration, outcomes, store',
    (operation) => {
      const row = rowOf(operation);

      expect(row.map((widget) => widget.properties.title?.replace(/^[^:]*: /, ''))).toEqual([
        'invocations, errors and throttles',
        'function duration',
        'outcomes, and refused requests',
        'store latency, and what was unavailable',
      ]);
      const text = JSON.stringify(row);
      for (const needle of ['"Invocations"', '"Errors"', '"Throttles"', '"Duration"']) {
        expect(text).toContain(needle);
      }
    },
  );

  it.each(operations)(
    "reads $name's metrics from $name's function only, under the name Lambda gives it behind an alias too",
    (operation) => {
      const [functionId] = functionOf(operation);
      const [aliasId] = operationResource(template, 'AWS::Lambda::Alias', operation, 'LiveAlias');
      const row = JSON.stringify(rowOf(operation));
      const others = operations
        .filter((other) => other !== operation)
        .map((other) => functionOf(other)[0]);

      expect(row).toContain(`"FunctionName","Ref(${functionId})"`);
      expect(row).toContain(`"Service","Ref(${functionId})"`);
      expect(row).toContain(`Service=\\"Ref(${functionId})\\"`);
      for (const other of [aliasId, ...others]) expect(row).not.toContain(other);
    },
  );

  it.each(
    operations.flatMap((operation) =>
      handlerMetricNames(operation).map((name) => [operation.name, name, operation] as const),
    ),
  )("shows %s's metric %s in its row", (_name, name, operation) => {
    const row = JSON.stringify(rowOf(operation));

    const graphed = row.includes(`"${metricsNamespace}","${name}"`);
    const searched =
      row.includes(`{${metricsNamespace},`) && row.includes(`MetricName=\\"${name}\\"`);
    expect(graphed || searched).toBe(true);
  });
});
