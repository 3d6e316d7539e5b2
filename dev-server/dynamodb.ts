import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import {
  CreateTableCommand,
  DynamoDBClient,
  ResourceInUseException,
} from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';
import { checkStore } from './store-check.ts';

/** Dummy credentials: dynalite checks that a request is SigV4-signed, not by whom. */
export const localAwsCredentials = {
  region: 'us-east-1',
  accessKeyId: 'local',
  secretAccessKey: 'local',
} as const;

/**
 * Starts dynalite on loopback at an ephemeral port (nothing else should reach it), its LevelDB in
 * `dir` (refused when damaged: `checkStore`) or in memory, and creates the table when absent, the
 * way the CDK stack creates it on AWS: partition key `id`, a Number.
 */
export async function startDynamoDb(options: {
  readonly dir?: string | undefined;
  readonly tableName: string;
}): Promise<{ endpoint: string; close(): Promise<void> }> {
  if (options.dir) await checkStore(options.dir);
  const server = dynalite({ ...(options.dir && { path: options.dir }), createTableMs: 0 });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // Waits for pending LevelDB writes and closes the database: the flush.
  const close = () =>
    new Promise<void>((resolve, reject) => {
      server.close((error) => (error ? reject(error) : resolve()));
      server.closeAllConnections();
    });
  const { region, ...credentials } = localAwsCredentials;
  const client = new DynamoDBClient({ region, endpoint, credentials });
  try {
    await client.send(
      new CreateTableCommand({
        TableName: options.tableName,
        AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'N' }],
        KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
        BillingMode: 'PAY_PER_REQUEST',
      }),
    );
  } catch (error) {
    // The table is already there: kept from an earlier run.
    if (!(error instanceof ResourceInUseException)) {
      await close().catch(() => undefined);
      throw error;
    }
  } finally {
    client.destroy();
  }
  return { endpoint, close };
}
