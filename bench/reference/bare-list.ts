import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { pageLimits } from '../../functions/list-plants/list-query.ts';
import { client, type Event, type Result, tableName } from './bare-client.ts';

/** BARE for GET /plants: the textbook SDK handler; no auth, no validation, no error mapping. */
export const handler = async (event: Event): Promise<Result> => {
  const limit = Number(event.queryStringParameters?.limit ?? pageLimits.default);
  const { Items = [] } = await client.send(new ScanCommand({ TableName: tableName, Limit: limit }));
  const plants = Items.map((item) => ({
    id: Number(item.id?.N),
    name: item.name?.S,
    ...(item.tag?.S === undefined ? {} : { tag: item.tag.S }),
  }));
  return { statusCode: 200, body: JSON.stringify(plants) };
};
