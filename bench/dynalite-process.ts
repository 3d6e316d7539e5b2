import { BatchWriteItemCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { localAwsCredentials, startDynamoDb } from '../dev-server/dynamodb.ts';

/** The store, in its own process; seeded so every list answers a full first page at once. */
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

const stop = () => void server.close().finally(() => process.exit(0));
process.stdin.on('end', stop).on('close', stop).resume();
process.on('SIGTERM', stop);
