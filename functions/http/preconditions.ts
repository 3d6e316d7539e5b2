import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { type EntityTagList, parseEntityTags } from './entity-tags.ts';
import { HttpError } from './http-error.ts';

type Precondition = 'If-Match' | 'If-None-Match';

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
  const other: Precondition = evaluated === 'If-Match' ? 'If-None-Match' : 'If-Match';
  if (event.headers?.[other.toLowerCase()] !== undefined) {
    throw new HttpError(400, `${other} is not supported here: send ${evaluated} instead`);
  }
  return parseEntityTags(evaluated, event.headers?.[evaluated.toLowerCase()]);
}
