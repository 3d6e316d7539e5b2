/**
 * What an operation declares about itself in `functions/<name>/operation.ts`: everything any
 * other layer needs to know of it (the stack, the dev server, the pre-traffic check, the
 * benchmark, the tests), as plain data. Types only: a declaration imports nothing else, so the
 * stack and the dev server load it without any handler code.
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

/** What a pre-traffic case expects of the body. */
export type ExpectedBody =
  /** Exactly `{error: <the status>, message: <non-empty text>}`. */
  | { readonly kind: 'error' }
  /** JSON deeply equal to `value`; the text `"{{id}}"` in it stands for the run's id, a number. */
  | { readonly kind: 'json'; readonly value: unknown }
  /** A JSON array of list items: objects with a numeric `id` and a text `name`. */
  | { readonly kind: 'list' }
  /** No body at all. */
  | { readonly kind: 'empty' };

/**
 * One request of the contract's core cases, and what must come back. The runner
 * (`functions/pre-traffic-check/core-cases.ts`) adds the token, and expects the headers every
 * answer of that kind carries: a JSON content type with a body, the Bearer challenge with a 401.
 */
export type CoreCase = {
  readonly name: string;
  /**
   * Another operation of the list to send this case to, by name, for a step around the
   * operation's own (creating the plant it reads, deleting it after); by default its own.
   */
  readonly operation?: string;
  /** The route's `{id}` in this case's path; by default the run's plant id. */
  readonly id?: string;
  /** The query string, without `?`. */
  readonly query?: string;
  /**
   * `{{etag}}` in a value stands for the ETag of the latest answer that carried one, and
   * `{{previous-etag}}` for the one before it (which a later write made stale).
   */
  readonly headers?: Readonly<Record<string, string>>;
  /** `{{id}}` stands for the run's plant id, written as a JSON number. Absent: no body. */
  readonly body?: string;
  /** Sent without `Authorization`; by default a case is sent with the run's token. */
  readonly withoutToken?: boolean;
  /**
   * Sent even after an earlier case could not be sent (the version crashed, the invoke failed):
   * a step that takes away what the run made, such as the delete of its plant.
   */
  readonly always?: boolean;
  readonly expected: {
    readonly status: number;
    /** Each named header (lowercase) must be present and match, beside the ones of its kind. */
    readonly headers?: Readonly<Record<string, RegExp>>;
    readonly body: ExpectedBody;
  };
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
  /**
   * A valid request about the plant `id` (a canonical int64), and the status it answers when no
   * plant has that id: what the tests, the smoke run and the benchmark send it.
   */
  readonly sample: {
    readonly request: (id: string) => SampleRequest;
    readonly status: number;
  };
  /**
   * The few requests whose answers show that a version of it works, in order, which its
   * pre-traffic hook and `npm run contract` send. A case without a token is added for every
   * operation from its sample.
   */
  readonly preTrafficCases: readonly CoreCase[];
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
