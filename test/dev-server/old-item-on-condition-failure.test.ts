import {
  ConditionalCheckFailedException,
  DeleteItemCommand,
  DynamoDBClient,
  PutItemCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localAwsCredentials, startDynamoDb } from '../../dev-server/dynamodb.ts';

// The AWS SDK, not the code under test, reads each answer: it is the wire shape DynamoDB sends.
describe('the local DynamoDB answering a failed condition (returnOldItemOnConditionFailure)', () => {
  const TableName = 'old-items';
  let dynamodb: Awaited<ReturnType<typeof startDynamoDb>>;
  let sdk: DynamoDBClient;
  beforeAll(async () => {
    dynamodb = await startDynamoDb({ tableName: TableName });
    const { region, ...credentials } = localAwsCredentials;
    sdk = new DynamoDBClient({ region, endpoint: dynamodb.endpoint, credentials, maxAttempts: 1 });
    await sdk.send(
      new PutItemCommand({ TableName, Item: { id: { N: '1' }, name: { S: 'Fern' } } }),
    );
  });
  afterAll(async () => {
    sdk.destroy();
    await dynamodb.close();
  });

  const Key = { id: { N: '1' } };
  const ConditionExpression = 'attribute_not_exists(id)';
  /** Each write of the stored item, conditioned on its absence so that it fails. */
  const writes = {
    PutItem: (asked: object) =>
      sdk.send(new PutItemCommand({ TableName, Item: Key, ConditionExpression, ...asked })),
    UpdateItem: (asked: object) =>
      sdk.send(
        new UpdateItemCommand({
          TableName,
          Key,
          ConditionExpression,
          UpdateExpression: 'SET tag = :tag',
          ExpressionAttributeValues: { ':tag': { S: 'indoor' } },
          ...asked,
        }),
      ),
    DeleteItem: (asked: object) =>
      sdk.send(new DeleteItemCommand({ TableName, Key, ConditionExpression, ...asked })),
  };
  const failureOf = (write: Promise<unknown>) => write.catch((error: unknown) => error);

  it.each(Object.keys(writes) as (keyof typeof writes)[])(
    '%s: returns the stored item as Item of a ConditionalCheckFailedException, asked for ALL_OLD',
    async (write) => {
      const failure = await failureOf(
        writes[write]({ ReturnValuesOnConditionCheckFailure: 'ALL_OLD' }),
      );

      expect(failure).toBeInstanceOf(ConditionalCheckFailedException);
      expect((failure as ConditionalCheckFailedException).Item).toStrictEqual({
        id: { N: '1' },
        name: { S: 'Fern' },
      });
    },
  );

  it.each([{}, { ReturnValuesOnConditionCheckFailure: 'NONE' }])(
    'returns no Item when the write did not ask for ALL_OLD (%j)',
    async (asked) => {
      const failure = await failureOf(writes.PutItem(asked));

      expect(failure).toBeInstanceOf(ConditionalCheckFailedException);
      expect((failure as ConditionalCheckFailedException).Item).toBeUndefined();
    },
  );

  it('returns no Item when no item is stored', async () => {
    const failure = await failureOf(
      sdk.send(
        new DeleteItemCommand({
          TableName,
          Key: { id: { N: '2' } },
          ConditionExpression: 'attribute_exists(id)',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      ),
    );

    expect(failure).toBeInstanceOf(ConditionalCheckFailedException);
    expect((failure as ConditionalCheckFailedException).Item).toBeUndefined();
  });
});
