import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ResourceInUseException,
  ResourceNotFoundException,
} from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';

/** Dummy credentials: dynalite checks that a request is SigV4-signed, not by whom. */
export const localAwsCredentials = {
  region: 'us-east-1',
  accessKeyId: 'local',
  secretAccessKey: 'local',
} as const;

export interface LocalDynamoDb {
  /** e.g. `http://127.0.0.1:49152`, for `AWS_ENDPOINT_URL_DYNAMODB`. */
  readonly endpoint: string;
  close(): Promise<void>;
}

export interface StartDynamoDbOptions {
  /** Directory of the LevelDB files; in memory when absent. */
  readonly dir?: string | undefined;
  readonly tableName: string;
}

/**
 * Starts dynalite on loopback at an ephemeral port (nothing else should reach it) and creates the
 * plants table when absent, the way the CDK stack creates it on AWS: partition key `id`, a Number.
 */
export async function startDynamoDb(options: StartDynamoDbOptions): Promise<LocalDynamoDb> {
  const server = dynalite({
    ...(options.dir === undefined ? {} : { path: join(options.dir) }),
    createTableMs: 0,
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const endpoint = `http://127.0.0.1:${port}`;
  const close = () =>
    new Promise<void>((resolve, reject) => {
      // dynalite's close waits for pending LevelDB writes and closes the database: the flush.
      server.close((error) => (error ? reject(error) : resolve()));
      server.closeAllConnections();
    });
  try {
    await ensureTable(endpoint, options.tableName);
  } catch (error) {
    await close().catch(() => undefined);
    throw error;
  }
  return { endpoint, close };
}

async function ensureTable(endpoint: string, tableName: string): Promise<void> {
  const { region, accessKeyId, secretAccessKey } = localAwsCredentials;
  const dynamodb = new DynamoDBClient({
    region,
    endpoint,
    credentials: { accessKeyId, secretAccessKey },
  });
  try {
    try {
      await dynamodb.send(new DescribeTableCommand({ TableName: tableName }));
      return;
    } catch (error) {
      if (!(error instanceof ResourceNotFoundException)) throw error;
    }
    await dynamodb.send(
      new CreateTableCommand({
        TableName: tableName,
        AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'N' }],
        KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
        BillingMode: 'PAY_PER_REQUEST',
      }),
    );
  } catch (error) {
    // Another process sharing the directory may have created it in between: that is success.
    if (!(error instanceof ResourceInUseException)) throw error;
  } finally {
    dynamodb.destroy();
  }
}
