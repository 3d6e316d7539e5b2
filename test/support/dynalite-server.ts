import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { localAwsCredentials, startDynamoDb } from '../../dev-server/dynamodb.ts';

export type DynaliteServer = {
  readonly endpoint: string;
  /** A table of its own, keyed like the real one (`id`, Number). */
  readonly tableName: string;
  /** The stored item of one id as DynamoDB JSON, read consistently with the AWS SDK. */
  getItem(tableName: string, id: string): Promise<Record<string, unknown> | undefined>;
  close(): Promise<void>;
};

let servers = 0;

/**
 * dynalite in memory on loopback, started and given its table exactly as `npm start` does
 * (`dev-server/dynamodb.ts`): a real DynamoDB wire protocol, no mocks. The AWS SDK reads back
 * what the handler's own client wrote, so a store check does not trust the code under test.
 */
export async function startDynalite(): Promise<DynaliteServer> {
  servers += 1;
  const tableName = `plants-${process.pid}-${servers}`;
  const dynamodb = await startDynamoDb({ tableName });
  const { region, accessKeyId, secretAccessKey } = localAwsCredentials;
  const client = new DynamoDBClient({
    region,
    endpoint: dynamodb.endpoint,
    credentials: { accessKeyId, secretAccessKey },
  });
  return {
    endpoint: dynamodb.endpoint,
    tableName,
    async getItem(table, id) {
      const { Item } = await client.send(
        new GetItemCommand({ TableName: table, Key: { id: { N: id } }, ConsistentRead: true }),
      );
      return Item;
    },
    async close() {
      client.destroy();
      await dynamodb.close();
    },
  };
}
