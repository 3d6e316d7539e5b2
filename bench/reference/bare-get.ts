import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { client, type Event, type Result, tableName } from './bare-client.ts';

/** BARE for GET /plants/{id}: the textbook SDK handler; no auth, no validation, no error mapping. */
export const handler = async (event: Event): Promise<Result> => {
  const { Item } = await client.send(
    new GetItemCommand({
      TableName: tableName,
      Key: { id: { N: String(event.pathParameters?.id) } },
      ConsistentRead: true,
    }),
  );
  if (Item === undefined) return { statusCode: 404 };
  const plant = {
    id: Number(Item.id?.N),
    name: Item.name?.S,
    ...(Item.tag?.S === undefined ? {} : { tag: Item.tag.S }),
  };
  return { statusCode: 200, body: JSON.stringify(plant) };
};
