import { HttpError } from '../../functions/http/http-error.ts';
import { parseListQuery } from '../../functions/list-plants/list-query.ts';
import { InvalidCursorError, listCursors } from '../../functions/plants/list-cursor.ts';
import type { PlantId } from '../../functions/plants/plant-id.ts';
import { answer, type Event, failure } from './limit-answers.ts';
import { type Item, plantJson } from './limit-plant.ts';
import { dynamoDb, refusal } from './limit-runtime.ts';

/** LIMIT for GET /plants: one Scan with Limit; the next page's cursor in a Link header. */
const cursors = listCursors(process.env.PLANTS_TABLE_NAME ?? '');

export const handler = async (event: Event) => {
  const refused = await refusal(event, 'plants/read');
  if (refused) return refused;
  let limit: number;
  let after: string | undefined;
  try {
    const query = parseListQuery(event.queryStringParameters);
    limit = query.limit;
    after = query.cursor === undefined ? undefined : cursors.decode(query.cursor, limit).after;
  } catch (error) {
    if (!(error instanceof HttpError || error instanceof InvalidCursorError)) throw error;
    return failure(400, error.message);
  }
  const scan = await dynamoDb('Scan', {
    Limit: limit,
    ...(after === undefined ? {} : { ExclusiveStartKey: { id: { N: after } } }),
  });
  if (scan.status !== 200) throw new Error(`Scan answered ${scan.status}: ${scan.output.__type}`);
  const { Items = [], LastEvaluatedKey } = scan.output as {
    Items?: Item[];
    LastEvaluatedKey?: Item;
  };
  const last = LastEvaluatedKey?.id.N;
  const next =
    last &&
    `</plants?limit=${limit}&cursor=${cursors.encode({ after: last as PlantId, limit })}>; rel="next"`;
  return answer(200, `[${Items.map(plantJson).join(',')}]`, next ? { link: next } : undefined);
};
