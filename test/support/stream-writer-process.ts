// A process that opens the local table in the directory `argv[2]` with its stream attached, as
// `npm start` does, creates plants 1, 2, 3, ... with conditional PutItems, and prints
// `created <id>` after each one dynalite acknowledged: the test SIGKILLs it then, and reads the
// stream back from the directory.
import { DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { localAwsCredentials, startDynamoDb } from '../../dev-server/dynamodb.ts';
import { attachTableStream } from '../../dev-server/webhook/table-stream.ts';

const [dir = '', tableName = 'plants'] = process.argv.slice(2);
const dynamodb = await startDynamoDb({ dir, tableName });
await attachTableStream(dynamodb.level, { tableName, region: localAwsCredentials.region });
const { region, accessKeyId, secretAccessKey } = localAwsCredentials;
const client = new DynamoDBClient({
  region,
  endpoint: dynamodb.endpoint,
  credentials: { accessKeyId, secretAccessKey },
});
for (let id = 1; ; id++) {
  await client.send(
    new PutItemCommand({
      TableName: tableName,
      Item: { id: { N: String(id) }, name: { S: `Plant ${id}` } },
      ConditionExpression: 'attribute_not_exists(id)',
    }),
  );
  process.stdout.write(`created ${id}\n`);
}
