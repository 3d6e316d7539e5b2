import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

/** BARE for GET /plants/{id}: the textbook SDK handler; no auth, no validation, no error mapping. */
const client = new DynamoDBClient({});
const tableName = process.env.PLANTS_TABLE_NAME;

export const handler = async (
  event: APIGatewayProxyEventV2,
): Promise<APIGatewayProxyStructuredResultV2> => {
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
