import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  PutItemCommand,
  ScanCommand,
} from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';
import { describe, expect, it } from 'vitest';
import { localAwsCredentials, startDynamoDb, untilActive } from '../../dev-server/dynamodb.ts';

describe('untilActive (how startDynamoDb waits for its new table)', () => {
  it('returns only once a table dynalite keeps CREATING for a while is ACTIVE', async () => {
    const server = dynalite({ createTableMs: 300 });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { region, ...credentials } = localAwsCredentials;
    const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const client = new DynamoDBClient({ region, endpoint, credentials });
    try {
      await client.send(
        new CreateTableCommand({
          TableName: 'slow',
          AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'N' }],
          KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
          BillingMode: 'PAY_PER_REQUEST',
        }),
      );

      await untilActive(client, 'slow');

      const { Table } = await client.send(new DescribeTableCommand({ TableName: 'slow' }));
      expect(Table?.TableStatus).toBe('ACTIVE');
    } finally {
      client.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('startDynamoDb', () => {
  it('closes the store iterator under every Scan, so that lists leak no iterator or snapshot', async () => {
    const db = await startDynamoDb({ tableName: 'iterators' });
    const { region, ...credentials } = localAwsCredentials;
    const client = new DynamoDBClient({ region, endpoint: db.endpoint, credentials });
    let prototype: { close(): Promise<void> } | null = Object.getPrototypeOf(db.level.keys());
    while (prototype !== null && !Object.hasOwn(prototype, 'close')) {
      prototype = Object.getPrototypeOf(prototype);
    }
    if (prototype === null) throw new Error("no close() on the store's iterators");
    const close = prototype.close;
    let closed = 0;
    prototype.close = function (this: unknown) {
      closed += 1;
      return close.call(this);
    };
    try {
      for (const id of ['1', '2', '3', '4']) {
        await client.send(new PutItemCommand({ TableName: 'iterators', Item: { id: { N: id } } }));
      }
      closed = 0;

      for (let page = 0; page < 20; page += 1) {
        await client.send(new ScanCommand({ TableName: 'iterators', Limit: 2 }));
      }

      expect(closed).toBeGreaterThanOrEqual(20);
    } finally {
      prototype.close = close;
      client.destroy();
      await db.close();
    }
  });
});
