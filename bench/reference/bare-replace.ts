import { ConditionalCheckFailedException, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { client, type Event, type Result, tableName } from './bare-client.ts';

/** BARE for PUT /plants/{id}: the textbook SDK handler; no auth, no validation, no error mapping. */
export const handler = async (event: Event): Promise<Result> => {
  const id = String(event.pathParameters?.id);
  const plant = JSON.parse(event.body ?? '{}') as { name: string; tag?: string };
  try {
    await client.send(
      new PutItemCommand({
        TableName: tableName,
        Item: {
          id: { N: id },
          name: { S: plant.name },
          ...(plant.tag === undefined ? {} : { tag: { S: plant.tag } }),
        },
        ConditionExpression: 'attribute_exists(id)',
      }),
    );
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return { statusCode: 404 };
    throw error;
  }
  return { statusCode: 200, body: JSON.stringify({ id: Number(id), ...plant }) };
};
