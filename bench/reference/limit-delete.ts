import { badId, bodiless, type Event, isInt64 } from './limit-answers.ts';
import { dynamoDb, refusal } from './limit-runtime.ts';

/** LIMIT for DELETE /plants/{id}: one DeleteItem, 204 whether or not the plant was there (0081). */
export const handler = async (event: Event) => {
  const refused = await refusal(event, 'plants/write');
  if (refused) return refused;
  const id = event.pathParameters?.id ?? '';
  if (!isInt64(id)) return badId();
  const deleted = await dynamoDb('DeleteItem', { Key: { id: { N: id } } });
  if (deleted.status !== 200) {
    throw new Error(`DeleteItem answered ${deleted.status}: ${deleted.output.__type}`);
  }
  return bodiless(204);
};
