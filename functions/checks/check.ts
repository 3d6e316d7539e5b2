import type { Operation, SampleRequest, sharedStatuses } from '../operation.ts';

// What `functions/<name>/checks.ts` declare: plain data, so a declaration imports no effects.

/** Reserved for check plants, so no subscriber hears of them (docs/decisions/0146-check-plants-not-delivered.md). */
export const checkPlantTag = 'plant-store-check';

export const checkPlant = { name: 'Pre-traffic check', tag: checkPlantTag } as const;

export const checkPlantBody = (id: string) => `{"id":${id},${JSON.stringify(checkPlant).slice(1)}`;

/** In a case's path, body or expected JSON: the run's plant id, written as a JSON number. */
export const idPlaceholder = '{{id}}';
/** In a header: the ETag of the latest answer that carried one, or of the fixture's plant. */
export const etagPlaceholder = '{{etag}}';
/** In a header: the ETag before the latest, which a later write made stale. */
export const previousEtagPlaceholder = '{{previous-etag}}';

export const storedCheckPlant = { id: idPlaceholder, ...checkPlant } as const;
export const strongEtag = { etag: /^"[^"]+"$/ } as const;

export type ExpectedBody =
  | { readonly kind: 'error' }
  /** `"{{id}}"` in `value` stands for the run's id, a number. */
  | { readonly kind: 'json'; readonly value: unknown }
  | { readonly kind: 'list' }
  | { readonly kind: 'empty' };

export type StatusOf<O extends Operation> = O['statuses'][number] | (typeof sharedStatuses)[number];

/** The runner adds the token, and the headers every answer of its kind carries. */
export type CheckCase<Status extends number = number> = {
  readonly name: string;
  /** The route's `{id}`; by default the run's plant id. */
  readonly id?: string;
  /** Without `?`. */
  readonly query?: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
  readonly expected: {
    readonly status: Status;
    /** Lowercase names; each must be present and match. */
    readonly headers?: Readonly<Record<string, RegExp>>;
    readonly body: ExpectedBody;
  };
};

export const checkPlantDeleted = { fixture: 'delete' } as const;

export type OperationChecks<O extends Operation = Operation> = {
  /** A valid request, and its status when no plant has that id; also sent without a token. */
  readonly sample: {
    readonly request: (id: string) => SampleRequest;
    readonly status: StatusOf<O>;
  };
  /** `absent`: the cases store the plant themselves. */
  readonly plant?: 'absent';
  readonly cases: readonly (CheckCase<StatusOf<O>> | typeof checkPlantDeleted)[];
};

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
