import {
  type EntityTagList,
  strongEntityTag,
  strongOpaques,
} from '../../functions/http/entity-tags.ts';
import { exactInteger } from '../../functions/plants/exact-integer.ts';
import { asRevision, unrevised } from '../../functions/plants/plant-revision.ts';
import { answer, badId, type Event, failure, isInt64 } from './limit-answers.ts';
import {
  conditionFailed,
  newRevision,
  plantItem,
  plantJson,
  precondition,
  sentPlant,
} from './limit-plant.ts';
import { dynamoDb, refusal } from './limit-runtime.ts';

/** LIMIT for PUT /plants/{id}: one conditional PutItem; the old item tells 412 from 404. */
export const handler = async (event: Event) => {
  const refused = await refusal(event, 'plants/write');
  if (refused) return refused;
  const id = event.pathParameters?.id ?? '';
  if (!isInt64(id)) return badId();
  const ifMatch = precondition(event, 'If-Match');
  if (ifMatch.refused) return ifMatch.refused;
  const sent = sentPlant(event);
  if (sent.refused) return sent.refused;
  if (sent.idSource !== undefined && exactInteger(sent.idSource) !== BigInt(id)) {
    return failure(400, `id must be the path's id, ${id}, or left out`);
  }
  const revision = newRevision();
  const item = plantItem(id, sent.plant, revision);
  const put = await dynamoDb('PutItem', {
    Item: item,
    ...condition(ifMatch.tags),
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
  });
  if (put.status === 200) return answer(200, plantJson(item), { etag: strongEntityTag(revision) });
  if (!conditionFailed(put.output)) {
    throw new Error(`PutItem answered ${put.status}: ${put.output.__type}`);
  }
  return put.output.Item === undefined
    ? failure(404, `no plant has the id ${id}`)
    : failure(412, 'the plant has changed since the ETag in If-Match was read');
};

/** A sketch of `conditionOf` and `conditionExpression`, which the product does not export. */
function condition(tags: EntityTagList | undefined) {
  if (tags === undefined || tags.any) return { ConditionExpression: 'attribute_exists(id)' };
  const named = [...new Set(strongOpaques(tags))].filter((tag) => asRevision(tag) !== undefined);
  const revisions = named.filter((revision) => revision !== unrevised);
  const values = Object.fromEntries(revisions.map((revision, k) => [`:r${k}`, { S: revision }]));
  const tests = revisions.length > 0 ? [`#rev IN (${Object.keys(values).join(', ')})`] : [];
  if (named.includes(unrevised)) tests.push('attribute_not_exists(#rev)');
  if (tests.length === 0) {
    tests.push('#rev = :none');
    values[':none'] = { S: '' };
  }
  return {
    ConditionExpression: `attribute_exists(id) AND (${tests.join(' OR ')})`,
    ExpressionAttributeNames: { '#rev': 'rev' },
    // DynamoDB refuses an empty map: `"0"` alone names no value.
    ...(Object.keys(values).length === 0 ? {} : { ExpressionAttributeValues: values }),
  };
}
