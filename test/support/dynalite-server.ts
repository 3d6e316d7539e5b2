import type { AddressInfo } from 'node:net';
import dynalite from 'dynalite';

export type DynaliteServer = {
  readonly endpoint: string;
  /** Creates a fresh table keyed like the real one (`id`, Number) and returns its name. */
  createTable(): Promise<string>;
  /** The stored item of one id as DynamoDB JSON, read consistently. */
  getItem(tableName: string, id: string): Promise<Record<string, unknown> | undefined>;
  close(): Promise<void>;
};

let tables = 0;

/** dynalite in memory on loopback: a real DynamoDB wire protocol, no mocks. */
export async function startDynalite(): Promise<DynaliteServer> {
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const call = async (operation: string, input: unknown) => {
    const response = await fetch(endpoint, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-amz-json-1.0',
        'x-amz-target': `DynamoDB_20120810.${operation}`,
        'x-amz-date': '20260101T000000Z',
        // dynalite checks the header's shape, not the signature.
        authorization:
          'AWS4-HMAC-SHA256 Credential=test/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=test',
      },
      body: JSON.stringify(input),
    });
    const payload = (await response.json()) as Record<string, unknown>;
    if (!response.ok) throw new Error(`dynalite ${operation}: ${JSON.stringify(payload)}`);
    return payload;
  };
  return {
    endpoint,
    async createTable() {
      tables += 1;
      const tableName = `plants-${process.pid}-${tables}`;
      await call('CreateTable', {
        TableName: tableName,
        AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'N' }],
        KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
        BillingMode: 'PAY_PER_REQUEST',
      });
      return tableName;
    },
    async getItem(tableName, id) {
      const { Item } = await call('GetItem', {
        TableName: tableName,
        Key: { id: { N: id } },
        ConsistentRead: true,
      });
      return Item as Record<string, unknown> | undefined;
    },
    close: () =>
      new Promise<void>((resolve, reject) =>
        server.close((error) => (error ? reject(error) : resolve())),
      ),
  };
}
