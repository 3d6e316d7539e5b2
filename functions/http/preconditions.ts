import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { type EntityTagList, parseEntityTags } from './entity-tags.ts';
import { HttpError } from './http-error.ts';
import type { HttpMiddleware } from './request-context.ts';

/** The precondition headers of RFC 9110 13.1 that compare entity tags. */
export type Precondition = 'If-Match' | 'If-None-Match';

const preconditions: readonly Precondition[] = ['If-Match', 'If-None-Match'];

/**
 * The one precondition header an operation evaluates (`If-None-Match` for a read, `If-Match` for
 * a write), parsed; undefined when the request has none. The other one is refused with a 400
 * rather than ignored: a client that sends it expects it to be honoured, and an ignored
 * precondition would let a read or a write happen that the client meant to prevent.
 */
export function preconditionOf(
  event: Pick<APIGatewayProxyEventV2, 'headers'>,
  evaluated: Precondition,
): EntityTagList | undefined {
  refuseUnevaluated(event, evaluated);
  return parseEntityTags(evaluated, event.headers?.[evaluated.toLowerCase()]);
}

/**
 * The step every operation takes once the caller is authorized: a precondition header the
 * operation does not evaluate (its declared `precondition`; none for an operation that declares
 * none) is refused with a 400 naming it, before anything else of the request is read. The
 * handler evaluates the declared one through `preconditionOf`, which refuses it when malformed:
 * so every precondition a request carries is evaluated or refused, never ignored
 * (docs/decisions/0130-preconditions.md).
 */
export function refuseUnevaluatedPreconditions(
  evaluated: Precondition | undefined,
): HttpMiddleware {
  return {
    name: 'refuseUnevaluatedPreconditions',
    before: ({ event }) => refuseUnevaluated(event, evaluated),
  };
}

function refuseUnevaluated(
  event: Pick<APIGatewayProxyEventV2, 'headers'>,
  evaluated: Precondition | undefined,
): void {
  for (const name of preconditions) {
    if (name === evaluated || event.headers?.[name.toLowerCase()] === undefined) continue;
    throw new HttpError(
      400,
      evaluated === undefined
        ? `${name} is not supported here: this operation evaluates no precondition`
        : `${name} is not supported here: send ${evaluated} instead`,
    );
  }
}
