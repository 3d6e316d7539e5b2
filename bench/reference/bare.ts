import { DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

/**
 * BARE: the textbook SDK handler the shipped one is measured against. The client is created once
 * at module scope; a request is `JSON.parse` and one conditional PutItem, nothing else (no auth,
 * no validation, no error mapping). `AWS_ENDPOINT_URL_DYNAMODB` points the SDK at the store.
 */
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
