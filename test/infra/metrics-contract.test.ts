import { beforeAll, describe, expect, it } from 'vitest';
import {
  embeddedMetrics,
  outcomeMetric,
  outcomeOf,
  type RequestOutcome,
} from '../../functions/http/request-metrics.ts';
import { extractedMetrics } from '../support/emf.ts';
import { synthStack } from '../support/synth.ts';

/**
 * The alarms and the dashboard read custom metrics by namespace, name and dimensions; the function
 * writes them into its log lines (Embedded Metric Format). Nothing but this test ties the two: a
 * renamed metric or dimension on either side leaves a graph empty and an alarm silent, and synth,
 * cdk-nag and the handler's tests all stay green.
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

/**
 * A template value as text, with each intrinsic shown as a placeholder such as `Ref(Fn1234)`, so
 * that an `Fn::Join`-built dashboard body can be parsed as the JSON CloudFormation makes of it.
 */
function render(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  if (typeof value === 'object' && value !== null) {
    const join = (value as { 'Fn::Join'?: [string, unknown[]] })['Fn::Join'];
    if (join) return join[1].map(render).join(join[0]);
    const ref = (value as { Ref?: string }).Ref;
    if (ref !== undefined) return `Ref(${ref})`;
    const getAtt = (value as { 'Fn::GetAtt'?: string[] })['Fn::GetAtt'];
    if (getAtt) return `GetAtt(${getAtt.join('.')})`;
  }
  throw new Error(`cannot render ${JSON.stringify(value)}`);
}

const isCustom = (namespace: string) => !namespace.startsWith('AWS/');

function alarmReferences(alarms: [string, Resource][]): MetricReference[] {
  type Dimension = { Name: string; Value: unknown };
  type MetricSpec = { Namespace?: string; MetricName?: string; Dimensions?: Dimension[] };
  const reference = (where: string, metric: MetricSpec): MetricReference[] => {
    if (metric.Namespace === undefined || metric.MetricName === undefined) return [];
    const dimensions = Object.fromEntries(
      (metric.Dimensions ?? []).map(({ Name, Value }) => [Name, render(Value)]),
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
    const body = JSON.parse(render(Properties.DashboardBody)) as { widgets: Widget[] };
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

/** Every metric identity the function's log lines can carry, for a function named `service`. */
function emittedMetrics(service: string): MetricIdentity[] {
  const authRefusals = new Set([outcomeOf(401, undefined), outcomeOf(403, undefined)]);
  const outcomes = Object.keys(outcomeMetric) as RequestOutcome[];
  return outcomes.flatMap((outcome) =>
    [undefined, 12.5].flatMap((storeLatencyMs) => {
      const authFailureReason = authRefusals.has(outcome) ? 'expired' : undefined;
      const line = embeddedMetrics({ outcome, service, authFailureReason, storeLatencyMs }, 0);
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

describe('the custom metrics the alarms and the dashboard read', () => {
  let references: MetricReference[];
  let functionName: string;

  beforeAll(() => {
    const resources = synthStack({ bundle: false }).template.toJSON().Resources as Record<
      string,
      Resource
    >;
    const ofType = (type: string) =>
      Object.entries(resources).filter(([, resource]) => resource.Type === type);
    // The create-plant function is the one given the table (custom resources may add others).
    const [functionId] =
      ofType('AWS::Lambda::Function').find(([, { Properties }]) => {
        const variables = (Properties.Environment as { Variables?: object } | undefined)?.Variables;
        return variables !== undefined && 'PLANTS_TABLE_NAME' in variables;
      }) ?? [];
    if (functionId === undefined) throw new Error('no create-plant function in the template');
    // Lambda sets AWS_LAMBDA_FUNCTION_NAME to the function's name, the Ref of the resource, and
    // the handler names its Service dimension after it (functions/config.ts).
    functionName = render({ Ref: functionId });
    references = [
      ...alarmReferences(ofType('AWS::CloudWatch::Alarm')),
      ...dashboardReferences(ofType('AWS::CloudWatch::Dashboard')),
    ].filter((reference) => isCustom(reference.namespace));
  });

  it('include the counters and the SEARCH the dashboard graphs (the check below is not empty)', () => {
    expect(references.length).toBeGreaterThan(0);
    expect(references.some((reference) => reference.where.endsWith('(SEARCH)'))).toBe(true);
  });

  it('are each emitted by the function, with the same namespace, dimension names and values', () => {
    const emitted = emittedMetrics(functionName);

    const unread = references
      .filter((reference) => !emitted.some((metric) => reads(reference, metric)))
      .map(
        ({ where, namespace, name, dimensionNames, dimensions }) =>
          `${where}: ${namespace}/${name} {${dimensionNames.join(',')}} ${JSON.stringify(dimensions)}`,
      );

    expect(unread).toStrictEqual([]);
  });

  it('pin the Service dimension to this stack function, so stages never mix', () => {
    for (const reference of references) {
      expect(reference.dimensions.Service, reference.where).toBe(functionName);
    }
  });
});
