import { isReplay } from '../../functions/plants/plant-store.ts';
import { answer, type Event, failure, isInt64 } from './limit-answers.ts';
import { conditionFailed, type Item, newRevision, plantItem, sentPlant } from './limit-plant.ts';
import { dynamoDb, refusal } from './limit-runtime.ts';

/**
 * LIMIT for POST /plants: the least a correct authenticated create can do with Node's built-ins
 * (docs/performance.md). The token first, then the body (`limit-plant.ts`: JSON, name and tag,
 * here with the exact int64 id from its source text), then one conditional PutItem of the plant
 * with a new revision; a failed condition is an idempotent replay when the stored plant is the
 * same by the product's rule (`isReplay`; DynamoDB returns it with the failure), else a 409.
 */
export const handler = async (event: Event) => {
  const refused = await refusal(event, 'plants/write');
  if (refused) return refused;
  const sent = sentPlant(event);
  if (sent.refused) return sent.refused;
  const { plant, idSource: id = '' } = sent;
  if (!isInt64(id)) return failure(400, 'id must be an integer from -2^63 to 2^63-1');
  const put = await dynamoDb('PutItem', {
    Item: plantItem(id, plant, newRevision()),
    ConditionExpression: 'attribute_not_exists(id)',
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
  });
  if (put.status === 200) return answer(200, JSON.stringify(plant));
  if (!conditionFailed(put.output)) {
    throw new Error(`PutItem answered ${put.status}: ${put.output.__type}`);
  }
  const stored = put.output.Item as Item | undefined;
  return stored !== undefined && isReplay({ name: stored.name.S, tag: stored.tag?.S }, plant)
    ? answer(200, JSON.stringify(plant))
    : failure(409, `a different plant with id ${id} exists`);
};
