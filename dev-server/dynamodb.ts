import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ResourceInUseException,
} from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';
import dynaliteDb, { type LevelDatabase } from 'dynalite/db/index.js';
import { returnOldItemOnConditionFailure } from './old-item-on-condition-failure.ts';
import { checkStore } from './store-check.ts';

/** Dummy credentials: dynalite checks that a request is SigV4-signed, not by whom. */
export const localAwsCredentials = {
  region: 'us-east-1',
  accessKeyId: 'local',
  secretAccessKey: 'local',
} as const;

/** dynalite on loopback only, its table created as the CDK stack creates it. */
export async function startDynamoDb(options: {
  readonly dir?: string;
  readonly tableName: string;
}): Promise<{ endpoint: string; level: LevelDatabase; close(): Promise<void> }> {
  if (options.dir) await checkStore(options.dir);
  const { server, level } = openDynalite({ ...(options.dir && { path: options.dir }) });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
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
    await untilActive(client, options.tableName);
  } catch (error) {
    if (!(error instanceof ResourceInUseException)) {
      await close().catch(() => undefined);
      throw error;
    }
  } finally {
    client.destroy();
  }
  return { endpoint, level, close };
}

/** Waits for ACTIVE: dynalite marks a new table ACTIVE later, and a PutItem before that fails. */
export async function untilActive(client: DynamoDBClient, tableName: string): Promise<void> {
  for (let waited = 0; waited < 5_000; waited += 5) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    if (Table?.TableStatus === 'ACTIVE') return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`The table ${tableName} did not become ACTIVE`);
}

/** dynalite's server and its LevelDB, caught from its store module's one `create` call. */
function openDynalite(options: { path?: string }): { server: Server; level: LevelDatabase } {
  returnOldItemOnConditionFailure();
  const create = dynaliteDb.create;
  let store: ReturnType<typeof create> | undefined;
  dynaliteDb.create = (storeOptions) => {
    store = create(storeOptions);
    return store;
  };
  try {
    const server = dynalite({ ...options, createTableMs: 0 });
    if (store === undefined) throw new Error('dynalite opened no store: its version changed?');
    closeIteratorsOnReturn(store.db);
    return { server, level: store.db };
  } finally {
    dynaliteDb.create = create;
  }
}

/** dynalite 4 calls `return()` on abstract-level 3 iterators, which lack it: a Scan would leak. */
function closeIteratorsOnReturn(level: LevelDatabase): void {
  const iterator = level.keys();
  let prototype: object | null = Object.getPrototypeOf(iterator);
  while (prototype !== null && !Object.hasOwn(prototype, 'close')) {
    prototype = Object.getPrototypeOf(prototype);
  }
  void iterator.close();
  if (prototype === null || 'return' in prototype) return;
  Object.defineProperty(prototype, 'return', {
    configurable: true,
    writable: true,
    value(this: { close(): Promise<void> }) {
      return this.close();
    },
  });
}
