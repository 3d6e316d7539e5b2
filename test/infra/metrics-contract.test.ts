import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  type DeliveryOutcome,
  deliveryCounters,
  deliveryMetrics,
} from '../../functions/deliver-webhook/delivery-metrics.ts';
import { accessLog } from '../../functions/http/access-log.ts';
import {
  embeddedMetrics,
  type OutcomeCounters,
  statusOutcome,
} from '../../functions/http/request-metrics.ts';
import { errorResponse, jsonResponse } from '../../functions/http/respond.ts';
import { countersOf } from '../../functions/operation-edge.ts';
import { type Operation, operations } from '../../functions/operations.ts';
import { extractedMetrics } from '../support/emf.ts';
import { middlewareRequest } from '../support/middleware-request.ts';
import {
  operationResource,
  renderTemplateValue,
  resourceAt,
  synthStack,
} from '../support/synth.ts';

/**
 * The alarms and the dashboard read custom metrics by namespace, name and dimensions; each
 * operation's function writes them into its log lines (Embedded Metric Format), or the stack's
 * metric filters count them from those lines. Nothing but this test ties the two: a renamed metric, dimension or log
 * field on either side leaves a graph empty and an alarm silent, and synth, cdk-nag and the
 * handler's tests all stay green.
 */

type Resource = { Type: string; Properties: Record<string, unknown> };

/** A metric as CloudWatch identifies it. Dimension values are rendered template values. */
type MetricIdentity = {
  readonly namespace: string;
  readonly name: string;
  readonly dimensions: Readonly<Record<string, string>>;
};

/** A metric read by an alarm or a widget, or matched by a dashboard SEARCH expression. */
type MetricReference = MetricIdentity & {
  readonly where: string;
  /** A SEARCH schema matches only metrics with exactly these dimension names. */
  readonly dimensionNames: readonly string[];
};

const isCustom = (namespace: string) => !namespace.startsWith('AWS/');

function alarmReferences(alarms: [string, Resource][]): MetricReference[] {
  type Dimension = { Name: string; Value: unknown };
  type MetricSpec = { Namespace?: string; MetricName?: string; Dimensions?: Dimension[] };
  const reference = (where: string, metric: MetricSpec): MetricReference[] => {
    if (metric.Namespace === undefined || metric.MetricName === undefined) return [];
    const dimensions = Object.fromEntries(
      (metric.Dimensions ?? []).map(({ Name, Value }) => [Name, renderTemplateValue(Value)]),
    );
    return [
      {
        where,
        namespace: metric.Namespace,
        name: metric.MetricName,
        dimensions,
        dimensionNames: Object.keys(dimensions),
      },
    ];
  };
  return alarms.flatMap(([id, { Properties }]) => {
    const where = `alarm ${id}`;
    const queries = (Properties.Metrics ?? []) as {
      MetricStat?: { Metric: MetricSpec };
      Expression?: string;
    }[];
    return [
      ...reference(where, Properties as MetricSpec),
      ...queries.flatMap((query) => [
        ...(query.MetricStat ? reference(where, query.MetricStat.Metric) : []),
        ...(query.Expression ? searchReferences(where, query.Expression) : []),
      ]),
    ];
  });
}

function dashboardReferences(dashboards: [string, Resource][]): MetricReference[] {
  type Widget = { properties?: { title?: string; metrics?: unknown[][] } };
  return dashboards.flatMap(([id, { Properties }]) => {
    const body = JSON.parse(renderTemplateValue(Properties.DashboardBody)) as { widgets: Widget[] };
    return body.widgets.flatMap(({ properties }) =>
      (properties?.metrics ?? []).flatMap((row): MetricReference[] => {
        const where = `dashboard ${id}, widget "${properties?.title}"`;
        const options = row.at(-1);
        if (typeof options === 'object' && options !== null && 'expression' in options) {
          return searchReferences(where, String(options.expression));
        }
        // [namespace, metricName, dimension name, value, ..., options?]; CDK writes no "." shorthand.
        const [namespace, name, ...rest] = row.filter((part) => typeof part === 'string');
        expect(rest.length % 2, `${where}: dimension names and values pair up`).toBe(0);
        const dimensions: Record<string, string> = {};
        for (let index = 0; index < rest.length; index += 2) {
          dimensions[String(rest[index])] = String(rest[index + 1]);
        }
        return [
          {
            where,
            namespace: String(namespace),
            name: String(name),
            dimensions,
            dimensionNames: Object.keys(dimensions),
          },
        ];
      }),
    );
  });
}

/**
 * `SEARCH('{Namespace,DimA,DimB} MetricName="X" DimA="v"', 'Sum', 300)`: the schema names the
 * namespace and the exact dimension names; `key="value"` terms pin the name and dimension values.
 */
function searchReferences(where: string, expression: string): MetricReference[] {
  return [...expression.matchAll(/SEARCH\(\s*'\{([^}]*)\}([^']*)'/g)].map((search) => {
    const [namespace = '', ...dimensionNames] = (search[1] ?? '').split(',').map((s) => s.trim());
    const terms = Object.fromEntries(
      [...(search[2] ?? '').matchAll(/(\w+)\s*=\s*"([^"]*)"/g)].map(([, key, value]) => [
        String(key),
        String(value),
      ]),
    );
    const { MetricName: name = '', ...dimensions } = terms;
    expect(name, `${where}: the SEARCH names its metric`).not.toBe('');
    return { where: `${where} (SEARCH)`, namespace, name, dimensions, dimensionNames };
  });
}

/**
 * Every metric identity a function's log lines can carry, for a function named `service` that
 * counts its outcomes under `counters`.
 */
function emittedMetrics(service: string, counters: OutcomeCounters): MetricIdentity[] {
  const authRefusals = new Set<string>([statusOutcome(401), statusOutcome(403)]);
  return Object.entries(counters).flatMap(([outcome, counter]) =>
    [undefined, 12.5].flatMap((storeLatencyMs) => {
      const authFailureReason = authRefusals.has(outcome) ? 'expired' : undefined;
      const line = embeddedMetrics({ counter, service, authFailureReason, storeLatencyMs }, 0);
      return extractedMetrics(line).map(({ namespace, name, dimensions }) => ({
        namespace,
        name,
        dimensions: Object.fromEntries(
          Object.entries(dimensions).map(([key, value]) => [key, String(value)]),
        ),
      }));
    }),
  );
}

const sameNames = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && [...a].sort().join() === [...b].sort().join();

/** The reference reads this emitted metric: same namespace, name, dimension names and pinned values. */
const reads = (reference: MetricReference, metric: MetricIdentity) =>
  reference.namespace === metric.namespace &&
  reference.name === metric.name &&
  sameNames(reference.dimensionNames, Object.keys(metric.dimensions)) &&
  Object.entries(reference.dimensions).every(([key, value]) => metric.dimensions[key] === value);

type MetricFilterSpec = {
  readonly id: string;
  readonly pattern: string;
  readonly namespace: string;
  readonly name: string;
  readonly value: string;
  readonly dimensions: Readonly<Record<string, string>>;
};

function metricFilters(filters: [string, Resource][]): MetricFilterSpec[] {
  type Transformation = {
    MetricNamespace: string;
    MetricName: string;
    MetricValue: string;
    Dimensions?: { Key: string; Value: string }[];
  };
  return filters.flatMap(([id, { Properties }]) =>
    (Properties.MetricTransformations as Transformation[]).map((transformation) => ({
      id,
      pattern: String(Properties.FilterPattern),
      namespace: transformation.MetricNamespace,
      name: transformation.MetricName,
      value: transformation.MetricValue,
      dimensions: Object.fromEntries(
        (transformation.Dimensions ?? []).map(({ Key, Value }) => [Key, Value]),
      ),
    })),
  );
}

/**
 * Whether a JSON log event matches a metric filter pattern. Only the form the stack writes is
 * understood, `{ $.a = "x" }` and `{ ($.a = "x") && ($.b = "y") }`; anything else throws, so the
 * test cannot pass on a pattern it misreads.
 */
function matchesPattern(pattern: string, line: Readonly<Record<string, unknown>>): boolean {
  const body = /^\{\s*(.*?)\s*\}$/.exec(pattern)?.[1];
  if (body === undefined) throw new Error(`not a JSON filter pattern: ${pattern}`);
  return body.split('&&').every((term) => {
    const match = /^\(?\s*\$\.(\w+)\s*=\s*"([^"*]*)"\s*\)?$/.exec(term.trim());
    if (match === null) throw new Error(`unsupported term "${term}" in ${pattern}`);
    return line[String(match[1])] === match[2];
  });
}

/** What a metric filter publishes for one log event: a dimension value is the event's field. */
function filteredMetric(
  filter: MetricFilterSpec,
  line: Readonly<Record<string, unknown>>,
): MetricIdentity | undefined {
  if (!matchesPattern(filter.pattern, line)) return undefined;
  const dimensions: Record<string, string> = {};
  for (const [key, path] of Object.entries(filter.dimensions)) {
    const value = line[path.replace(/^\$\./, '')];
    // CloudWatch publishes nothing for an event that lacks a dimension's field.
    if (value === undefined) return undefined;
    dimensions[key] = String(value);
  }
  return { namespace: filter.namespace, name: filter.name, dimensions };
}

/**
 * The request line of the operation's function for an answer with `status`, as Lambda's version
 * `version` writes it; a 200 is the operation's first own outcome, as its declaration names it.
 */
function requestLine(
  operation: Operation,
  status: number,
  version: string,
  service: string,
): Readonly<Record<string, unknown>> {
  const counters = countersOf(operation);
  const [success] = Object.keys(operation.outcomes);
  const lines: Record<string, unknown>[] = [];
  const middleware = accessLog(
    (level, message, fields) => {
      lines.push({ level, message, ...fields });
    },
    service,
    counters,
  );
  const request = middlewareRequest();
  request.context.functionVersion = version;
  middleware.before?.(request);
  if (status === 200) request.context.outcome = success;
  request.response =
    status === 200 ? jsonResponse(200, { name: 'Fern' }) : errorResponse(status, 'x');
  middleware.after?.(request);
  expect(lines).toHaveLength(1);
  return lines[0] as Record<string, unknown>;
}

/** Each operation's function as the template names it, and the version this deploy publishes. */
type DeployedFunction = {
  readonly operation: Operation;
  /** What Lambda sets AWS_LAMBDA_FUNCTION_NAME to: the function resource's Ref. */
  readonly functionName: string;
  /** What Lambda sets AWS_LAMBDA_FUNCTION_VERSION to: the Version resource's number. */
  readonly versionNumber: string;
};

function deployedFunctions(template: Template): DeployedFunction[] {
  return operations.map((operation) => {
    const [functionId] = operationResource(
      template,
      'AWS::Lambda::Function',
      operation,
      'Function',
    );
    const [versionId] = operationResource(
      template,
      'AWS::Lambda::Version',
      operation,
      'FunctionCurrentVersion',
    );
    return {
      operation,
      // The handler names its Service dimension after the function (functions/config.ts).
      functionName: renderTemplateValue({ Ref: functionId }),
      versionNumber: renderTemplateValue({ 'Fn::GetAtt': [versionId, 'Version'] }),
    };
  });
}

describe('the custom metrics the alarms and the dashboard read', () => {
  let references: MetricReference[];
  let functions: DeployedFunction[];
  let filters: MetricFilterSpec[];

  beforeAll(() => {
    const { template } = synthStack();
    const resources = template.toJSON().Resources as Record<string, Resource>;
    const ofType = (type: string) =>
      Object.entries(resources).filter(([, resource]) => resource.Type === type);
    functions = deployedFunctions(template);
    filters = metricFilters(ofType('AWS::Logs::MetricFilter'));
    references = [
      ...alarmReferences(ofType('AWS::CloudWatch::Alarm')),
      ...dashboardReferences(ofType('AWS::CloudWatch::Dashboard')),
    ].filter((reference) => isCustom(reference.namespace));
  });

  it('include the counters and the SEARCH the dashboard graphs (the check below is not empty)', () => {
    expect(references.length).toBeGreaterThan(0);
    expect(references.some((reference) => reference.where.endsWith('(SEARCH)'))).toBe(true);
  });

  it("are each emitted by an operation's function, with the same namespace, dimension names and values", () => {
    const emitted = functions.flatMap(({ operation, functionName, versionNumber }) => {
      const lines = [200, 400, 401, 409, 500, 503].map((status) =>
        requestLine(operation, status, versionNumber, functionName),
      );
      return [
        ...emittedMetrics(functionName, countersOf(operation)),
        ...filters.flatMap((filter) => lines.flatMap((line) => filteredMetric(filter, line) ?? [])),
      ];
    });

    const unread = references
      .filter((reference) => !emitted.some((metric) => reads(reference, metric)))
      .map(
        ({ where, namespace, name, dimensionNames, dimensions }) =>
          `${where}: ${namespace}/${name} {${dimensionNames.join(',')}} ${JSON.stringify(dimensions)}`,
      );

    expect(unread).toStrictEqual([]);
  });

  it("pin the Service dimension to one of this stack's functions, so stages never mix", () => {
    const names = functions.map(({ functionName }) => functionName);
    for (const reference of references) {
      expect(names, reference.where).toContain(reference.dimensions.Service);
    }
  });

  it("read every operation's own counters, under its own function", () => {
    for (const { operation, functionName } of functions) {
      const own = references.filter((reference) => reference.dimensions.Service === functionName);
      const names = new Set(own.map((reference) => reference.name));
      for (const counter of Object.values(countersOf(operation))) {
        expect(names, `${operation.name} ${counter}`).toContain(counter);
      }
    }
  });
});

describe('the metric filters on the request line', () => {
  let filters: MetricFilterSpec[];

  beforeAll(() => {
    const resources = synthStack().template.toJSON().Resources as Record<string, Resource>;
    filters = metricFilters(
      Object.entries(resources).filter(
        ([, resource]) => resource.Type === 'AWS::Logs::MetricFilter',
      ),
    );
  });

  /** What each operation's filter named `name` publishes for that operation's line; all agree. */
  const published = (name: string, status: number) => {
    const found = operations.flatMap((operation) =>
      filters
        .filter((each) => each.name === name)
        .map((filter) => filteredMetric(filter, requestLine(operation, status, '7', 'fn-1'))),
    );
    expect(found).toHaveLength(operations.length * operations.length);
    expect(new Set(found.map((each) => JSON.stringify(each))).size).toBe(1);
    return found[0];
  };

  it.each([200, 400, 401, 403, 409, 415, 500, 503])(
    'count a %s answer as a request of the version that gave it',
    (status) => {
      expect(published('VersionRequests', status)).toEqual({
        namespace: 'PlantStore',
        name: 'VersionRequests',
        dimensions: { Service: 'fn-1', FunctionVersion: '7' },
      });
    },
  );

  it('count a 500 as a failure of that version', () => {
    expect(published('VersionFailures', 500)?.dimensions).toEqual({
      Service: 'fn-1',
      FunctionVersion: '7',
    });
  });

  it.each([200, 400, 401, 409, 503])('do not count a %s as a failure', (status) => {
    expect(published('VersionFailures', status)).toBeUndefined();
  });
});

describe('the custom metrics of the new-plant webhook', () => {
  let references: MetricReference[];
  let deliverer: string;

  beforeAll(() => {
    const { template } = synthStack({
      webhookUrl: 'https://hooks.example.com/plant/webhook',
    });
    const resources = template.toJSON().Resources as Record<string, Resource>;
    const ofType = (type: string) =>
      Object.entries(resources).filter(([, resource]) => resource.Type === type);
    const [functionId] = resourceAt(template, 'AWS::Lambda::Function', 'NewPlantWebhookDeliverer');
    deliverer = renderTemplateValue({ Ref: functionId });
    references = [
      ...alarmReferences(ofType('AWS::CloudWatch::Alarm')),
      ...dashboardReferences(ofType('AWS::CloudWatch::Dashboard')),
    ].filter(
      (reference) => isCustom(reference.namespace) && reference.dimensions.Service === deliverer,
    );
  });

  it("are each written by the deliverer's log lines, under its function's name", () => {
    const outcomes = Object.keys(deliveryCounters) as DeliveryOutcome[];
    const emitted = outcomes.flatMap((outcome) =>
      [undefined, 812].flatMap((latencyMs) =>
        extractedMetrics(deliveryMetrics({ outcome, service: deliverer, latencyMs }, 0)).map(
          ({ namespace, name, dimensions }) => ({
            namespace,
            name,
            dimensions: Object.fromEntries(
              Object.entries(dimensions).map(([key, value]) => [key, String(value)]),
            ),
          }),
        ),
      ),
    );

    const unread = references
      .filter((reference) => !emitted.some((metric) => reads(reference, metric)))
      .map(({ where, name }) => `${where}: ${name}`);

    expect(unread).toStrictEqual([]);
  });

  it('graph delivered, retried, dead-lettered and the latency', () => {
    const names = new Set(references.map((reference) => reference.name));

    expect([...names].sort()).toStrictEqual(
      [...Object.values(deliveryCounters), 'WebhookDeliveryLatency'].sort(),
    );
  });
});
