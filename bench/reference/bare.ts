import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { client, type Event, type Result, tableName } from './bare-client.ts';

/** BARE for POST /plants: the textbook SDK handler; no auth, no validation, no error mapping. */
export const handler = async (event: Event): Promise<Result> => {
  const plant = JSON.parse(event.body ?? '{}') as { id: number; name: string; tag?: string };
  await client.send(
    new PutItemCommand({
      TableName: tableName,
      Item: {
        id: { N: String(plant.id) },
        name: { S: plant.name },
        ...(plant.tag === undefined ? {} : { tag: { S: plant.tag } }),
      },
      ConditionExpression: 'attribute_not_exists(id)',
    }),
  );
  return { statusCode: 200, body: JSON.stringify(plant) };
};
