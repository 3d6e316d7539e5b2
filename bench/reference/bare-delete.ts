import { DeleteItemCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

/** BARE for DELETE /plants/{id}: the textbook SDK handler; no auth, no validation, no error mapping. */
const client = new DynamoDBClient({});
const tableName = process.env.PLANTS_TABLE_NAME;

export const handler = async (
  event: APIGatewayProxyEventV2,
): Promise<APIGatewayProxyStructuredResultV2> => {
  await client.send(
    new DeleteItemCommand({
      TableName: tableName,
      Key: { id: { N: String(event.pathParameters?.id) } },
    }),
  );
  return { statusCode: 204 };
};
