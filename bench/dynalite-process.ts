import { BatchWriteItemCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { localAwsCredentials, startDynamoDb } from '../dev-server/dynamodb.ts';

/**
 * The store for the benchmark, in a process of its own so that its CPU never shows up in a
 * measured handler's figures. Prints `{"endpoint", "tableName"}` as one line, then serves until
 * stdin closes. The table starts with `seededPlants` plants, so that every list answers a full
 * first page from its first round on, as from a table in use.
 */
const seededPlants = 100;

const tableName = 'plants';
const server = await startDynamoDb({ tableName });
const { region, ...credentials } = localAwsCredentials;
const client = new DynamoDBClient({ region, endpoint: server.endpoint, credentials });
// Ids far below those the benchmark creates (now in ms, times 1000), so none is taken.
for (let first = 1; first <= seededPlants; first += 25) {
  const batch = Array.from({ length: Math.min(25, seededPlants - first + 1) }, (_, k) => ({
    PutRequest: {
      Item: { id: { N: String(first + k) }, name: { S: 'Seeded fern' }, tag: { S: 'bench' } },
    },
  }));
  await client.send(new BatchWriteItemCommand({ RequestItems: { [tableName]: batch } }));
}
client.destroy();
process.stdout.write(`${JSON.stringify({ endpoint: server.endpoint, tableName })}\n`);

const stop = () => {
  server.close().finally(() => process.exit(0));
};
process.stdin.on('end', stop);
process.stdin.on('close', stop);
process.stdin.resume();
process.on('SIGTERM', stop);
