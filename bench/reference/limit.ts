import { isReplay } from '../../functions/plants/plant-store.ts';
import { answer, type Event, failure, isInt64 } from './limit-answers.ts';
import { conditionFailed, type Item, newRevision, plantItem, sentPlant } from './limit-plant.ts';
import { dynamoDb, refusal } from './limit-runtime.ts';

/** LIMIT for POST /plants: one conditional PutItem; the old item tells a replay from a conflict. */
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
