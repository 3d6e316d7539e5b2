import type { APIGatewayProxyStructuredResultV2 as Result } from 'aws-lambda';
import type { EntityTagList } from '../../functions/http/entity-tags.ts';
import { HttpError } from '../../functions/http/http-error.ts';
import { preconditionOf } from '../../functions/http/preconditions.ts';
import { unrevised } from '../../functions/plants/plant-revision.ts';
import { type Event, failure } from './limit-answers.ts';

/**
 * What LIMIT's create, read and replace share: a plant's body as sent, its item as stored (with
 * the revision every write gives it, docs/decisions/0127-etag-is-a-revision.md), its JSON as a list
 * item has it, and the precondition header by the product's own rules.
 *
 * A sketch of the body's rules, not a second home for them: the sizes below restate `limits` of
 * functions/plants/new-plant.ts, which cannot be imported without its zod schema, and the text
 * rules (plant-text.ts, NFC) are left out. test/bench/limit.test.ts holds LIMIT to the shipped
 * answers for the requests it sends.
 */
export type Plant = { readonly name: string; readonly tag?: string };
export type Item = {
  readonly id: { readonly N: string };
  readonly name: { readonly S: string };
  readonly tag?: { readonly S: string };
  readonly rev?: { readonly S: string };
};

/** Either what a step read, or the answer refusing the request. */
export type Read<T> = (T & { readonly refused?: undefined }) | { readonly refused: Result };

const text = (value: unknown, max: number): value is string =>
  typeof value === 'string' && value.length > 0 && value.length <= max;

/** Node 24 hands a reviver each primitive's source text; TypeScript's lib predates it. */
type Reviver = (
  this: object,
  key: string,
  value: unknown,
  context?: { source?: string },
) => unknown;
const parse = JSON.parse as (text: string, reviver: Reviver) => unknown;

/**
 * The request's body as a plant, with the source text of its top-level `id` (undefined when it
 * has none), or the 415, 413 or 400 refusing it.
 */
export function sentPlant(event: Event): Read<{ plant: Plant; idSource: string | undefined }> {
  if (!/^application\/json\s*(;|$)/i.test(event.headers['content-type'] ?? '')) {
    return { refused: failure(415, 'Content-Type must be application/json') };
  }
  const body = event.isBase64Encoded
    ? Buffer.from(event.body ?? '', 'base64').toString()
    : (event.body ?? '');
  if (body.length > 16_384) return { refused: failure(413, 'the body is over 16 KiB') };
  const ids = new WeakMap<object, string | undefined>();
  let sent: unknown;
  try {
    sent = parse(body, function (key, value, context) {
      if (key === 'id') ids.set(this, context?.source);
      return value;
    });
  } catch {
    return { refused: failure(400, 'the body is not valid JSON') };
  }
  if (typeof sent !== 'object' || sent === null || Array.isArray(sent)) {
    return { refused: failure(400, 'the body must be a JSON object') };
  }
  const { name, tag } = sent as Record<string, unknown>;
  if (!text(name, 200)) {
    return { refused: failure(400, 'name must be a string of 1 to 200 characters') };
  }
  if (tag !== undefined && !text(tag, 64)) {
    return { refused: failure(400, 'tag must be a string of 1 to 64 characters') };
  }
  return { plant: tag === undefined ? { name } : { name, tag }, idSource: ids.get(sent) };
}

/** The If-Match or If-None-Match list, parsed by the product's rules, or their 400. */
export function precondition(
  event: Event,
  name: 'If-Match' | 'If-None-Match',
): Read<{ tags: EntityTagList | undefined }> {
  try {
    return { tags: preconditionOf(event, name) };
  } catch (error) {
    if (!(error instanceof HttpError)) throw error;
    return { refused: failure(error.statusCode, error.message) };
  }
}

/** 16 random bytes in base64url, as every create and replace writes them. */
export const newRevision = () =>
  process.getBuiltinModule('node:crypto').randomBytes(16).toString('base64url');

/** A plant stored before revisions existed has none: its revision is `unrevised`. */
export const revisionOf = (item: Item): string => item.rev?.S ?? unrevised;

export const plantItem = (id: string, { name, tag }: Plant, revision: string): Item => ({
  id: { N: id },
  name: { S: name },
  ...(tag === undefined ? {} : { tag: { S: tag } }),
  rev: { S: revision },
});

/** A list item's JSON: the id exact, from DynamoDB's number text; the tag only when there is one. */
export const plantJson = ({ id, name, tag }: Item) =>
  `{"id":${id.N},"name":${JSON.stringify(name.S)}${tag ? `,"tag":${JSON.stringify(tag.S)}` : ''}}`;

/** Whether a write failed on its condition rather than on anything else. */
export const conditionFailed = (output: Record<string, unknown>) =>
  String(output.__type).endsWith('#ConditionalCheckFailedException');
