import {
  type AttributeValue,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
} from '@aws-sdk/client-dynamodb';
import { localAwsCredentials, startDynamoDb } from '../../dev-server/dynamodb.ts';

export type DynaliteServer = {
  readonly endpoint: string;
  /** A table of its own, keyed like the real one (`id`, Number). */
  readonly tableName: string;
  /**
   * The stored plant of one id as DynamoDB JSON (`id`, `name`, `tag`), read consistently with the
   * AWS SDK, without its revision `rev`: a fresh random value per write, which `getRevision` reads.
   */
  getItem(tableName: string, id: string): Promise<Record<string, unknown> | undefined>;
  /** Stores an item as it is, past the API: a plant as an older version of the code wrote it. */
  putItem(tableName: string, item: Record<string, AttributeValue>): Promise<void>;
  /** The stored revision of one id (`rev`), or undefined for an absent or unrevised plant. */
  getRevision(tableName: string, id: string): Promise<string | undefined>;
  close(): Promise<void>;
};

let servers = 0;

/**
 * dynalite in memory on loopback, started and given its table exactly as `npm start` does
 * (`dev-server/dynamodb.ts`): a real DynamoDB wire protocol, no mocks, and a failed condition
 * answered with its old item as DynamoDB does (ALL_OLD), so that no store test runs against an
 * answer DynamoDB never gives. The AWS SDK reads back
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
  const read = async (table: string, id: string) => {
    const { Item } = await client.send(
      new GetItemCommand({ TableName: table, Key: { id: { N: id } }, ConsistentRead: true }),
    );
    return Item;
  };
  return {
    endpoint: dynamodb.endpoint,
    tableName,
    async getItem(table, id) {
      const { rev: _revision, ...plant } = (await read(table, id)) ?? {};
      return Object.keys(plant).length === 0 ? undefined : plant;
    },
    async putItem(table, item) {
      await client.send(new PutItemCommand({ TableName: table, Item: item }));
    },
    async getRevision(table, id) {
      return (await read(table, id))?.rev?.S;
    },
    async close() {
      client.destroy();
      await dynamodb.close();
    },
  };
}
