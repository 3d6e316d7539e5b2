import { DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { pageLimits } from '../../functions/list-plants/list-query.ts';

/** BARE for GET /plants: the textbook SDK handler; no auth, no validation, no error mapping. */
const client = new DynamoDBClient({});
const tableName = process.env.PLANTS_TABLE_NAME;

export const handler = async (
  event: APIGatewayProxyEventV2,
): Promise<APIGatewayProxyStructuredResultV2> => {
  const limit = Number(event.queryStringParameters?.limit ?? pageLimits.default);
  const { Items = [] } = await client.send(new ScanCommand({ TableName: tableName, Limit: limit }));
  const plants = Items.map((item) => ({
    id: Number(item.id?.N),
    name: item.name?.S,
    ...(item.tag?.S === undefined ? {} : { tag: item.tag.S }),
  }));
  return { statusCode: 200, body: JSON.stringify(plants) };
};
