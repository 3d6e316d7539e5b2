import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { type EntityTagList, parseEntityTags } from './entity-tags.ts';
import { HttpError } from './http-error.ts';
import type { HttpMiddleware } from './request-context.ts';

export type Precondition = 'If-Match' | 'If-None-Match';

const preconditions: readonly Precondition[] = ['If-Match', 'If-None-Match'];

/** Every precondition is evaluated or refused, never ignored (docs/decisions/0130-preconditions.md). */
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

/** Once the caller is authorized, before anything else of the request is read. */
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
