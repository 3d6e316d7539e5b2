/** A metric as CloudWatch extracts it from an Embedded Metric Format log line. */
export type ExtractedMetric = {
  readonly namespace: string;
  readonly dimensions: Readonly<Record<string, unknown>>;
  readonly name: string;
  readonly unit: string;
  readonly value: unknown;
};

type EmfDirective = {
  readonly Namespace: string;
  readonly Dimensions: readonly (readonly string[])[];
  readonly Metrics: readonly { readonly Name: string; readonly Unit: string }[];
};

/**
 * The metrics CloudWatch extracts from a log line: one per metric and dimension set of each
 * `_aws.CloudWatchMetrics` directive, the values read from the line's own fields. None when the
 * line has no `_aws` member.
 */
export function extractedMetrics(line: Readonly<Record<string, unknown>>): ExtractedMetric[] {
  const directives = (line._aws as { CloudWatchMetrics: EmfDirective[] } | undefined)
    ?.CloudWatchMetrics;
  return (directives ?? []).flatMap(({ Namespace, Dimensions, Metrics }) =>
    Dimensions.flatMap((names) =>
      Metrics.map(({ Name, Unit }) => ({
        namespace: Namespace,
        dimensions: Object.fromEntries(names.map((name) => [name, line[name]])),
        name: Name,
        unit: Unit,
        value: line[Name],
      })),
    ),
  );
}
