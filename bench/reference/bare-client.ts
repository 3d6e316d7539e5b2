import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

/** What every BARE handler shares: the textbook SDK client, created once per environment. */
export const client = new DynamoDBClient({});
export const tableName = process.env.PLANTS_TABLE_NAME;
export type Event = APIGatewayProxyEventV2;
export type Result = APIGatewayProxyStructuredResultV2;
