import {
  ConditionalCheckFailedException,
  DynamoDBClient,
  PutItemCommand,
} from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localAwsCredentials } from '../../../dev-server/dynamodb.ts';
import { createDynamoDbClient } from '../../../functions/connections/dynamodb-client.ts';
import { createDynamoDbPlantStore } from '../../../functions/plants/dynamodb-plant-store.ts';
import type { NewPlant, Plant } from '../../../functions/plants/new-plant.ts';
import {
  PlantConflictError,
  type PlantStore,
  StoreUnavailableError,
} from '../../../functions/plants/plant-store.ts';
import { type DynaliteServer, startDynalite } from '../../support/dynalite-server.ts';
import {
  type ConditionFailureAnswer,
  type FaultProxy,
  startFaultProxy,
} from '../../support/fault-proxy.ts';

type StoreUnderTest = {
  readonly dynalite: DynaliteServer;
  readonly proxy: FaultProxy;
  readonly store: PlantStore;
  /**
   * The operations the store sent to DynamoDB while `act` ran, as the proxy saw them. A failure
   * of `act` (an assertion in it included) fails the test: a case that expects one catches it.
   */
  callsDuring(act: () => Promise<unknown>): Promise<string[]>;
  close(): Promise<void>;
};

async function startStore(conditionFailure: ConditionFailureAnswer): Promise<StoreUnderTest> {
  const dynalite = await startDynalite();
  const proxy = await startFaultProxy(dynalite.endpoint, { conditionFailure });
  const store = createDynamoDbPlantStore(
    createDynamoDbClient({
      endpoint: new URL(proxy.endpoint),
      region: 'us-east-1',
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
      backoffBaseMs: 1,
    }),
    dynalite.tableName,
  );
  return {
    dynalite,
    proxy,
    store,
    async callsDuring(act) {
      const before = proxy.requests().length;
      await act();
      return proxy
        .requests()
        .slice(before)
        .map(({ operation }) => operation);
    },
    async close() {
      await proxy.close();
      await dynalite.close();
    },
  };
}

let lastId = 5_000_000n;
const freshId = () => String(++lastId);
const conditionFailed = {
  kind: 'dynamoError',
  status: 400,
  type: 'ConditionalCheckFailedException',
} as const;

describe('the test proxy answering as DynamoDB (conditionFailure: dynamodb)', () => {
  let dynalite: DynaliteServer;
  let proxy: FaultProxy;
  let sdk: DynamoDBClient;
  beforeAll(async () => {
    dynalite = await startDynalite();
    proxy = await startFaultProxy(dynalite.endpoint, { conditionFailure: 'dynamodb' });
    const { region, accessKeyId, secretAccessKey } = localAwsCredentials;
    sdk = new DynamoDBClient({
      region,
      endpoint: proxy.endpoint,
      credentials: { accessKeyId, secretAccessKey },
      maxAttempts: 1,
    });
  });
  afterAll(async () => {
    sdk.destroy();
    await proxy.close();
    await dynalite.close();
  });

  const put = (id: string, name: string, returnOld: boolean) =>
    sdk.send(
      new PutItemCommand({
        TableName: dynalite.tableName,
        Item: { id: { N: id }, name: { S: name } },
        ConditionExpression: 'attribute_not_exists(id)',
        ...(returnOld ? { ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const } : {}),
      }),
    );

  // The AWS SDK, not the code under test, reads the answer: it is the wire shape DynamoDB sends.
  it('returns the stored item as Item of a ConditionalCheckFailedException when asked for ALL_OLD', async () => {
    const id = freshId();
    await put(id, 'Stored', true);

    const failure = await put(id, 'Other', true).catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(ConditionalCheckFailedException);
    expect((failure as ConditionalCheckFailedException).Item).toStrictEqual({
      id: { N: id },
      name: { S: 'Stored' },
    });
  });

  it('returns no Item when the request did not ask for ALL_OLD, as DynamoDB does', async () => {
    const id = freshId();
    await put(id, 'Stored', false);

    const failure = await put(id, 'Other', false).catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(ConditionalCheckFailedException);
    expect((failure as ConditionalCheckFailedException).Item).toBeUndefined();
  });
});

describe.each<[ConditionFailureAnswer, string[]]>([
  ['dynamodb', ['PutItem']],
  ['dynalite', ['PutItem', 'GetItem']],
])(
  'DynamoDbPlantStore when a failed condition is answered as %s does',
  (conditionFailure, callsForExistingId) => {
    let subject: StoreUnderTest;
    beforeAll(async () => {
      subject = await startStore(conditionFailure);
    });
    afterAll(() => subject.close());

    const create = (plant: NewPlant) => subject.store.create(plant);
    const stored = (id: string) => subject.dynalite.getItem(subject.dynalite.tableName, id);

    it('creates a new plant with one PutItem', async () => {
      const id = freshId();

      const calls = await subject.callsDuring(async () => {
        expect(await create({ id, name: 'Fern', tag: 'indoor' })).toStrictEqual({
          plant: { name: 'Fern', tag: 'indoor' },
          outcome: 'created',
        });
      });

      expect(calls).toStrictEqual(['PutItem']);
      expect(await stored(id)).toStrictEqual({
        id: { N: id },
        name: { S: 'Fern' },
        tag: { S: 'indoor' },
      });
    });

    it.each([
      ['with a tag', { name: 'Fern', tag: 'indoor' }],
      ['without a tag', { name: 'Fern' }],
    ])(`recognises a replay %s, in ${callsForExistingId.length} call(s)`, async (_case, plant) => {
      const id = freshId();
      await create({ id, ...plant });
      let result: unknown;

      const calls = await subject.callsDuring(async () => {
        result = await create({ id, ...plant });
      });

      expect(result).toStrictEqual({ plant, outcome: 'replayed' });
      expect(calls).toStrictEqual(callsForExistingId);
    });

    it.each<[string, Plant, Plant]>([
      ['another name', { name: 'Fern' }, { name: 'Moss' }],
      ['another tag', { name: 'Fern', tag: 'indoor' }, { name: 'Fern', tag: 'outdoor' }],
      ['a stored tag left out', { name: 'Fern', tag: 'indoor' }, { name: 'Fern' }],
      ['a tag added', { name: 'Fern' }, { name: 'Fern', tag: 'indoor' }],
    ])(
      `refuses %s as a conflict, in ${callsForExistingId.length} call(s), and keeps the stored plant`,
      async (_case, first, second) => {
        const id = freshId();
        await create({ id, ...first });
        let failure: unknown;

        const calls = await subject.callsDuring(async () => {
          failure = await create({ id, ...second }).catch((error: unknown) => error);
        });

        expect(failure).toBeInstanceOf(PlantConflictError);
        expect(calls).toStrictEqual(callsForExistingId);
        expect(await stored(id)).toStrictEqual({
          id: { N: id },
          name: { S: first.name },
          ...(first.tag === undefined ? {} : { tag: { S: first.tag } }),
        });
      },
    );

    it('reports the store unavailable, never a replay, when the condition failed but nothing is stored', async () => {
      const id = freshId();
      await subject.proxy.inject(conditionFailed, { operation: 'PutItem', times: 1 });
      let failure: unknown;

      const calls = await subject.callsDuring(async () => {
        failure = await create({ id, name: 'Phantom' }).catch((error: unknown) => error);
      });

      expect(failure).toBeInstanceOf(StoreUnavailableError);
      // No Item in the failure: the store reads back before it answers.
      expect(calls).toStrictEqual(['PutItem', 'GetItem']);
      expect(await stored(id)).toBeUndefined();
    });
  },
);
