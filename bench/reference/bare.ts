import { DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

/** BARE for POST /plants: the textbook SDK handler; no auth, no validation, no error mapping. */
const client = new DynamoDBClient({});
const tableName = process.env.PLANTS_TABLE_NAME;

export const handler = async (
  event: APIGatewayProxyEventV2,
): Promise<APIGatewayProxyStructuredResultV2> => {
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
