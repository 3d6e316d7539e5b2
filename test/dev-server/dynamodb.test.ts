import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { CreateTableCommand, DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';
import { describe, expect, it } from 'vitest';
import { localAwsCredentials, untilActive } from '../../dev-server/dynamodb.ts';

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
