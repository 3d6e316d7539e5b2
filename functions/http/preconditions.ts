import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { type EntityTagList, parseEntityTags } from './entity-tags.ts';
import { HttpError } from './http-error.ts';
import type { HttpMiddleware } from './request-context.ts';

/** The precondition headers of RFC 9110 13.1 that compare entity tags. */
export type Precondition = 'If-Match' | 'If-None-Match';

const preconditions: readonly Precondition[] = ['If-Match', 'If-None-Match'];

/**
 * The one precondition header an operation evaluates (`If-None-Match` for a read, `If-Match` for
 * a write), parsed: undefined when the request has none, or the operation evaluates none. Any
 * other is refused with a 400 naming it rather than ignored: a client that sends it expects it
 * honoured, and an ignored precondition would let a read or a write happen that the client meant
 * to prevent. A malformed one is refused too (`parseEntityTags`): so every precondition a request
 * carries is evaluated or refused, never ignored (docs/decisions/0130-preconditions.md).
 */
export function preconditionOf(
  event: Pick<APIGatewayProxyEventV2, 'headers'>,
  evaluated: Precondition | undefined,
): EntityTagList | undefined {
  for (const name of preconditions) {
    if (name === evaluated || event.headers?.[name.toLowerCase()] === undefined) continue;
    throw new HttpError(
      400,
      evaluated === undefined
        ? `${name} is not supported here: this operation evaluates no precondition`
        : `${name} is not supported here: send ${evaluated} instead`,
    );
  }
  return evaluated && parseEntityTags(evaluated, event.headers?.[evaluated.toLowerCase()]);
}

/**
 * The step every operation takes once the caller is authorized, before anything else of the
 * request is read: `preconditionOf` the header it declares (`Operation['precondition']`), which
 * the handler evaluates.
 */
export function readPrecondition(
  evaluated: Precondition | undefined,
): HttpMiddleware<{ precondition: EntityTagList | undefined }> {
  return {
    name: 'readPrecondition',
    before: ({ event, context }) => {
      context.precondition = preconditionOf(event, evaluated);
    },
  };
}
