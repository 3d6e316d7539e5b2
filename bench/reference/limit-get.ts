import { matchesWeakly, strongEntityTag } from '../../functions/http/entity-tags.ts';
import { answer, badId, bodiless, type Event, failure, isInt64 } from './limit-answers.ts';
import { type Item, plantJson, precondition, revisionOf } from './limit-plant.ts';
import { dynamoDb, refusal } from './limit-runtime.ts';

// Decision 0128: a read plant may be kept, and revalidated before each use.
const caching = { 'cache-control': 'private, no-cache' };

/** LIMIT for GET /plants/{id}: one consistent GetItem, then 404, 304 or 200 with a strong ETag. */
export const handler = async (event: Event) => {
  const refused = await refusal(event, 'plants/read');
  if (refused) return refused;
  const id = event.pathParameters?.id ?? '';
  if (!isInt64(id)) return badId();
  const ifNoneMatch = precondition(event, 'If-None-Match');
  if (ifNoneMatch.refused) return ifNoneMatch.refused;
  const read = await dynamoDb('GetItem', { Key: { id: { N: id } }, ConsistentRead: true });
  if (read.status !== 200)
    throw new Error(`GetItem answered ${read.status}: ${read.output.__type}`);
  const item = read.output.Item as Item | undefined;
  if (item === undefined) return failure(404, `no plant has the id ${id}`);
  const revision = revisionOf(item);
  const headers = { etag: strongEntityTag(revision), ...caching };
  if (ifNoneMatch.tags && matchesWeakly(ifNoneMatch.tags, revision)) return bodiless(304, headers);
  return answer(200, plantJson(item), headers);
};
