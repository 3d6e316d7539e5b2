// What `functions/<name>/operation.ts` declares: plain data, so the stack and the dev server load
// it without handler code.

/** The edge's and the error table's. */
export const sharedStatuses = [401, 403, 500, 503] as const;

/** The caller adds the token. */
export type SampleRequest = {
  /** Decoded, as API Gateway hands them over. */
  readonly pathParameters?: Readonly<Record<string, string>>;
  /** Without `?`. */
  readonly query?: string;
  readonly body?: string;
  readonly headers?: Readonly<Record<string, string>>;
};

/** Outcome -> the counter it adds one to. */
export type OwnOutcomes = Readonly<Record<string, string>>;

export type Operation = {
  /** The folder under `functions/`, the construct id and the metrics' name. */
  readonly name: string;
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** As API Gateway writes it: `{id}` is a path parameter. */
  readonly path: string;
  readonly scope: 'plants/read' | 'plants/write';
  /** Exactly those its store calls make. */
  readonly dynamodbActions: readonly `dynamodb:${string}`[];
  readonly summary: string;
  /** Beside the shared `failureCounters` of `failures.ts`. */
  readonly outcomes: OwnOutcomes;
  /** The edge refuses any other (docs/decisions/0130-preconditions.md). */
  readonly precondition?: 'If-Match' | 'If-None-Match' | undefined;
  /** `sharedStatuses` come on top. */
  readonly statuses: readonly number[];
};

export const routeKey = (operation: Pick<Operation, 'method' | 'path'>) =>
  `${operation.method} ${operation.path}`;

export function requestPath(
  operation: Pick<Operation, 'path'>,
  request: Pick<SampleRequest, 'pathParameters' | 'query'>,
): string {
  const path = operation.path.replace(/\{([^{}]+)\}/g, (_, name: string) =>
    encodeURIComponent(request.pathParameters?.[name] ?? ''),
  );
  return request.query ? `${path}?${request.query}` : path;
}
