/**
 * What an operation declares about itself in `functions/<name>/operation.ts`: the facts the
 * product and the stack read, as plain data. Types only: a declaration imports nothing else, so
 * the stack and the dev server load it without any handler code. How it is tried (its sample
 * request and its checks) is in `checks.ts` beside it (`functions/checks/check.ts`).
 */

/** The statuses every operation can answer, whatever it does: the edge's and the error table's. */
export const sharedStatuses = [401, 403, 500, 503] as const;

/** A request as an authorized caller sends it; the caller adds the token. */
export type SampleRequest = {
  /** The values of the route's `{name}`s, as API Gateway hands them over (decoded). */
  readonly pathParameters?: Readonly<Record<string, string>>;
  /** The raw query string, without `?`. */
  readonly query?: string;
  /** A JSON body; sent with `Content-Type: application/json`. */
  readonly body?: string;
  /** More headers, lowercase names. */
  readonly headers?: Readonly<Record<string, string>>;
};

/** How an operation names what came of a request: outcome -> the counter it adds one to. */
export type OwnOutcomes = Readonly<Record<string, string>>;

export type Operation = {
  /** The folder under `functions/`, the function's construct id and its metrics' name. */
  readonly name: string;
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** As API Gateway writes a route's path: `{id}` is a path parameter. */
  readonly path: string;
  /** The scope a token must carry (`AUTH_SCOPE` of the operation's function). */
  readonly scope: 'plants/read' | 'plants/write';
  /** Exactly the DynamoDB actions its store calls make on the plants table. */
  readonly dynamodbActions: readonly `dynamodb:${string}`[];
  /** One line for the function's description and the docs. */
  readonly summary: string;
  /**
   * Its own outcomes and the counter each adds one to (what the dashboard graphs and the alarms
   * read), beside the failures every operation shares (`failureCounters` in `failures.ts`).
   */
  readonly outcomes: OwnOutcomes;
  /**
   * The precondition header it evaluates (RFC 9110 13.1); none when undefined or left out. The
   * shared edge refuses any other with a 400, so that no precondition a client sends is ignored
   * (docs/decisions/0130-preconditions.md); the handler evaluates this one.
   */
  readonly precondition?: 'If-Match' | 'If-None-Match' | undefined;
  /** Every status it answers of its own; `sharedStatuses` come on top. */
  readonly statuses: readonly number[];
};

/** API Gateway's route key: `POST /plants`. */
export const routeKey = (operation: Pick<Operation, 'method' | 'path'>) =>
  `${operation.method} ${operation.path}`;

/** The path a request for this operation goes to, its `{name}`s filled in and the query after. */
export function requestPath(
  operation: Pick<Operation, 'path'>,
  request: Pick<SampleRequest, 'pathParameters' | 'query'>,
): string {
  const path = operation.path.replace(/\{([^{}]+)\}/g, (_, name: string) =>
    encodeURIComponent(request.pathParameters?.[name] ?? ''),
  );
  return request.query ? `${path}?${request.query}` : path;
}
