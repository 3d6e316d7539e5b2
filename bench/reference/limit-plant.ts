import type { APIGatewayProxyStructuredResultV2 as Result } from 'aws-lambda';
import type { EntityTagList } from '../../functions/http/entity-tags.ts';
import { HttpError } from '../../functions/http/http-error.ts';
import { preconditionOf } from '../../functions/http/preconditions.ts';
import { unrevised } from '../../functions/plants/plant-revision.ts';
import { type Event, failure } from './limit-answers.ts';

/** The body's sizes restate new-plant.ts's `limits`, which cannot be imported without zod. */
export type Plant = { readonly name: string; readonly tag?: string };
export type Item = {
  readonly id: { readonly N: string };
  readonly name: { readonly S: string };
  readonly tag?: { readonly S: string };
  readonly rev?: { readonly S: string };
};

export type Read<T> = (T & { readonly refused?: undefined }) | { readonly refused: Result };

const text = (value: unknown, max: number): value is string =>
  typeof value === 'string' && value.length > 0 && value.length <= max;

/** The body as a plant, with the source text of its top-level `id`, or the answer refusing it. */
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
    // Node 24 hands a reviver each primitive's source text; TypeScript's lib predates it.
    sent = JSON.parse(body, function (key, value, context?: { source?: string }) {
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

export const newRevision = () =>
  process.getBuiltinModule('node:crypto').randomBytes(16).toString('base64url');

export const revisionOf = (item: Item): string => item.rev?.S ?? unrevised;

export const plantItem = (id: string, { name, tag }: Plant, revision: string): Item => ({
  id: { N: id },
  name: { S: name },
  ...(tag === undefined ? {} : { tag: { S: tag } }),
  rev: { S: revision },
});

/** The id exact, from DynamoDB's number text. */
export const plantJson = ({ id, name, tag }: Item) =>
  `{"id":${id.N},"name":${JSON.stringify(name.S)}${tag ? `,"tag":${JSON.stringify(tag.S)}` : ''}}`;

export const conditionFailed = (output: Record<string, unknown>) =>
  String(output.__type).endsWith('#ConditionalCheckFailedException');
