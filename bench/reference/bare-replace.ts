import {
  ConditionalCheckFailedException,
  DynamoDBClient,
  PutItemCommand,
} from '@aws-sdk/client-dynamodb';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

/** BARE for PUT /plants/{id}: the textbook SDK handler; no auth, no validation, no error mapping. */
const client = new DynamoDBClient({});
const tableName = process.env.PLANTS_TABLE_NAME;

export const handler = async (
  event: APIGatewayProxyEventV2,
): Promise<APIGatewayProxyStructuredResultV2> => {
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
