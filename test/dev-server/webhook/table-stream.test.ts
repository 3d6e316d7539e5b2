import {
  BatchWriteItemCommand,
  DeleteItemCommand,
  DynamoDBClient,
  PutItemCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { localAwsCredentials, startDynamoDb } from '../../../dev-server/dynamodb.ts';
import {
  attachTableStream,
  type StoredRecord,
  type TableStream,
} from '../../../dev-server/webhook/table-stream.ts';
import { tempDataDir } from '../../support/local-api-fixture.ts';
import { runScript } from '../../support/node-script.ts';

const { region, accessKeyId, secretAccessKey } = localAwsCredentials;
const tableName = 'plants';
const clientOf = (endpoint: string) =>
  new DynamoDBClient({ region, endpoint, credentials: { accessKeyId, secretAccessKey } });

describe('attachTableStream (the local table stream, from dynalite in memory)', () => {
  let dynamodb: Awaited<ReturnType<typeof startDynamoDb>>;
  let stream: TableStream;
  let client: DynamoDBClient;

  beforeAll(async () => {
    dynamodb = await startDynamoDb({ tableName });
    stream = await attachTableStream(dynamodb.level, { tableName, region });
    client = clientOf(dynamodb.endpoint);
  });

  afterAll(async () => {
    stream?.detach();
    client?.destroy();
    await dynamodb?.close();
  });

  /** The records written since the last call, trimmed from the stream. */
  const take = async (): Promise<StoredRecord[]> => {
    const records = await stream.read(100);
    await dynamodb.level.batch(stream.trimOperations(records));
    return records;
  };
  afterEach(take);

  const create = (id: string, name: string) =>
    client.send(
      new PutItemCommand({
        TableName: tableName,
        Item: { id: { N: id }, name: { S: name } },
        ConditionExpression: 'attribute_not_exists(id)',
      }),
    );
  const remove = (id: string) =>
    client.send(new DeleteItemCommand({ TableName: tableName, Key: { id: { N: id } } }));

  it('records a new item as DynamoDB Streams documents an INSERT of view type NEW_IMAGE', async () => {
    const before = Math.floor(Date.now() / 1000);
    await create('9223372036854775807', 'Fern');

    const records = await take();

    expect(records).toHaveLength(1);
    const [{ record } = { record: undefined }] = records;
    expect(record).toEqual({
      eventID: expect.stringMatching(/^[0-9a-f]{32}$/),
      eventName: 'INSERT',
      eventVersion: '1.1',
      eventSource: 'aws:dynamodb',
      awsRegion: region,
      dynamodb: {
        ApproximateCreationDateTime: expect.any(Number),
        Keys: { id: { N: '9223372036854775807' } },
        NewImage: { id: { N: '9223372036854775807' }, name: { S: 'Fern' } },
        SequenceNumber: expect.stringMatching(/^\d{21,}$/),
        SizeBytes: expect.any(Number),
        StreamViewType: 'NEW_IMAGE',
      },
      eventSourceARN: expect.stringMatching(
        /^arn:aws:dynamodb:us-east-1:000000000000:table\/plants\/stream\/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}$/,
      ),
    });
    expect(record?.eventSourceARN).toBe(stream.arn);
    expect(record?.dynamodb.ApproximateCreationDateTime).toBeGreaterThanOrEqual(before);
    expect(record?.dynamodb.ApproximateCreationDateTime).toBeLessThanOrEqual(Date.now() / 1000);
    // DynamoDB's size rules: the key is `id` (2) and 19 digits (1 + 10); the image adds
    // `name` and `Fern` (4 + 4).
    expect(record?.dynamodb.SizeBytes).toBe(13 + 21);
  });

  it('records nothing for a failed condition, a put that changes nothing, or a delete of nothing', async () => {
    await create('1', 'Fern');
    await take();

    await expect(create('1', 'Fern')).rejects.toThrow(/conditional/i);
    await expect(create('1', 'Rose')).rejects.toThrow(/conditional/i);
    await client.send(
      new PutItemCommand({
        TableName: tableName,
        Item: { name: { S: 'Fern' }, id: { N: '1' } },
      }),
    );
    await remove('404');

    expect(await take()).toEqual([]);
  });

  it('records MODIFY for a change, REMOVE with the keys alone for a delete, and a new INSERT for a re-create', async () => {
    await create('2', 'Ivy');
    await client.send(
      new UpdateItemCommand({
        TableName: tableName,
        Key: { id: { N: '2' } },
        UpdateExpression: 'SET tag = :tag',
        ExpressionAttributeValues: { ':tag': { S: 'hanging' } },
      }),
    );
    await remove('2');
    await create('2', 'Ivy');

    const records = (await take()).map(({ record }) => record);

    expect(records.map(({ eventName }) => eventName)).toEqual([
      'INSERT',
      'MODIFY',
      'REMOVE',
      'INSERT',
    ]);
    expect(records[1]?.dynamodb.NewImage).toEqual({
      id: { N: '2' },
      name: { S: 'Ivy' },
      tag: { S: 'hanging' },
    });
    expect(records[2]?.dynamodb).not.toHaveProperty('NewImage');
    expect(records[2]?.dynamodb.Keys).toEqual({ id: { N: '2' } });
    expect(new Set(records.map(({ eventID }) => eventID)).size).toBe(4);
    const sequence = records.map(({ dynamodb: { SequenceNumber } }) => BigInt(SequenceNumber));
    expect(sequence).toEqual([...sequence].sort((a, b) => (a < b ? -1 : 1)));
  });

  it('records each item a BatchWriteItem puts, and one record per item of concurrent creates', async () => {
    await client.send(
      new BatchWriteItemCommand({
        RequestItems: {
          [tableName]: ['10', '11'].map((id) => ({
            PutRequest: { Item: { id: { N: id }, name: { S: `Batch ${id}` } } },
          })),
        },
      }),
    );
    const results = await Promise.allSettled(
      Array.from({ length: 30 }, (_, index) => create(String(20 + (index % 3)), 'Race')),
    );

    const records = await take();

    expect(results.filter(({ status }) => status === 'fulfilled')).toHaveLength(3);
    expect(records.map(({ record }) => record.dynamodb.Keys.id?.N).sort()).toEqual([
      '10',
      '11',
      '20',
      '21',
      '22',
    ]);
    expect(records.every(({ record }) => record.eventName === 'INSERT')).toBe(true);
  });
});

describe('attachTableStream on a data directory', () => {
  it('keeps the record of every create dynalite acknowledged, across a SIGKILL, and numbers on after it', async () => {
    const { dir, remove } = await tempDataDir();
    try {
      const writer = runScript('test/support/stream-writer-process.ts', {}, [dir, tableName]);
      await writer.waitFor(/created 5\n/);
      writer.child.kill('SIGKILL');
      await writer.exited;
      const acknowledged = Number(/created (\d+)\n$/.exec(writer.stdout())?.[1]);

      const dynamodb = await startDynamoDb({ dir, tableName });
      try {
        const stream = await attachTableStream(dynamodb.level, { tableName, region });
        const kept = await stream.read(1_000);
        const client = clientOf(dynamodb.endpoint);
        await client.send(
          new PutItemCommand({
            TableName: tableName,
            Item: { id: { N: '0' }, name: { S: 'After' } },
          }),
        );
        client.destroy();
        const all = await stream.read(1_000);
        stream.detach();

        const ids = kept.map(({ record }) => Number(record.dynamodb.Keys.id?.N));
        expect(acknowledged).toBeGreaterThanOrEqual(5);
        // Every acknowledged create, and at most the one in flight when it died.
        expect(ids.slice(0, acknowledged)).toEqual(
          Array.from({ length: acknowledged }, (_, index) => index + 1),
        );
        expect(ids.length - acknowledged).toBeLessThanOrEqual(1);
        expect(all.at(-1)?.record.dynamodb.Keys).toEqual({ id: { N: '0' } });
        expect(BigInt(all.at(-1)?.record.dynamodb.SequenceNumber ?? 0)).toBeGreaterThan(
          BigInt(kept.at(-1)?.record.dynamodb.SequenceNumber ?? 0),
        );
        expect(new Set(all.map(({ record }) => record.eventSourceARN)).size).toBe(1);
      } finally {
        await dynamodb.close();
      }
    } finally {
      await remove();
    }
  });
});
