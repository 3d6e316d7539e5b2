import type { Operation, SampleRequest, sharedStatuses } from '../operation.ts';

/**
 * What an operation's checks declare (`functions/<name>/checks.ts`), and the one plant they work
 * on. Plain data, so that a declaration imports nothing with effects.
 */

/**
 * The tag of every plant a check stores (the pre-traffic hook, `npm run smoke`, `npm run
 * contract`): reserved for them, so that the webhook's pipe leaves their plants out and no
 * subscriber hears of test data (docs/decisions/0146-check-plants-not-delivered.md).
 */
export const checkPlantTag = 'plant-store-check';

/** The plant the checks' fixture stores under the run's id, before an operation's cases. */
export const checkPlant = { name: 'Pre-traffic check', tag: checkPlantTag } as const;

/** The create body of the check plant under `id`, a JSON number's text. */
export const checkPlantBody = (id: string) => `{"id":${id},${JSON.stringify(checkPlant).slice(1)}`;

/** In a case's path, body or expected JSON: the run's plant id, written as a JSON number. */
export const idPlaceholder = '{{id}}';
/** In a header: the ETag of the latest answer that carried one, or of the fixture's plant. */
export const etagPlaceholder = '{{etag}}';
/** In a header: the ETag before the latest, which a later write made stale. */
export const previousEtagPlaceholder = '{{previous-etag}}';

/** The check plant as a read answers it. */
export const storedCheckPlant = { id: idPlaceholder, ...checkPlant } as const;
/** A strong entity tag, as a read or a write of a plant carries it. */
export const strongEtag = { etag: /^"[^"]+"$/ } as const;

/** What a case expects of the body. */
export type ExpectedBody =
  /** Exactly `{error: <the status>, message: <non-empty text>}`. */
  | { readonly kind: 'error' }
  /** JSON deeply equal to `value`; the text `"{{id}}"` in it stands for the run's id, a number. */
  | { readonly kind: 'json'; readonly value: unknown }
  /** A JSON array of list items: objects with a numeric `id` and a text `name`. */
  | { readonly kind: 'list' }
  /** No body at all. */
  | { readonly kind: 'empty' };

/** A status the operation declares, or one every operation can answer. */
export type StatusOf<O extends Operation> = O['statuses'][number] | (typeof sharedStatuses)[number];

/**
 * One request of an operation's checks, and what must come back. The runner adds the token and
 * the headers every answer of its kind carries: a JSON content type with a body, the Bearer
 * challenge with a 401.
 */
export type CheckCase<Status extends number = number> = {
  readonly name: string;
  /** The route's `{id}` in this case's path; by default the run's plant id. */
  readonly id?: string;
  /** The query string, without `?`. */
  readonly query?: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** Sent with `Content-Type: application/json`; absent: no body. */
  readonly body?: string;
  readonly expected: {
    readonly status: Status;
    /** Each named header (lowercase) must be present and match. */
    readonly headers?: Readonly<Record<string, RegExp>>;
    readonly body: ExpectedBody;
  };
};

/** A step between two cases: the fixture deletes the check plant, as a client would. */
export const checkPlantDeleted = { fixture: 'delete' } as const;

/** What `functions/<name>/checks.ts` declares, typed against that operation's statuses. */
export type OperationChecks<O extends Operation = Operation> = {
  /**
   * A valid request about the plant `id` (a canonical int64), and the status it answers when no
   * plant has that id: what the tests, the smoke run and the benchmark send it. The runner sends
   * it without a token first, for the 401.
   */
  readonly sample: {
    readonly request: (id: string) => SampleRequest;
    readonly status: StatusOf<O>;
  };
  /** `absent`: the fixture stores no plant; the cases make it themselves. */
  readonly plant?: 'absent';
  /** In order, each against the check plant the fixture stored under the run's id. */
  readonly cases: readonly (CheckCase<StatusOf<O>> | typeof checkPlantDeleted)[];
};

/** A case that must be refused with `status`, in the `{error, message}` shape. */
export const refused = <Status extends number>(
  status: Status,
  what: string,
  request: Omit<CheckCase, 'name' | 'expected'> = {},
) =>
  ({
    name: `${what} gets ${status} in the error shape`,
    ...request,
    expected: { status, body: { kind: 'error' } },
  }) as const;
