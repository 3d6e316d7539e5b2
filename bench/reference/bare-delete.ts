import { DeleteItemCommand } from '@aws-sdk/client-dynamodb';
import { client, type Event, type Result, tableName } from './bare-client.ts';

/** BARE for DELETE /plants/{id}: the textbook SDK handler; no auth, no validation, no error mapping. */
export const handler = async (event: Event): Promise<Result> => {
  await client.send(
    new DeleteItemCommand({
      TableName: tableName,
      Key: { id: { N: String(event.pathParameters?.id) } },
    }),
  );
  return { statusCode: 204 };
};
