import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  createDynamoDbClient,
  type DynamoDbClient,
  DynamoDbServiceError,
  DynamoDbUnavailableError,
} from '../../../functions/connections/dynamodb-client.ts';
import { type DynaliteServer, startDynalite } from '../../support/dynalite-server.ts';
import { type Fault, type FaultProxy, startFaultProxy } from '../../support/fault-proxy.ts';

const maxAttempts = 3;

let dynalite: DynaliteServer;
let proxy: FaultProxy;
let client: DynamoDbClient;

beforeAll(async () => {
  dynalite = await startDynalite();
  proxy = await startFaultProxy(dynalite.endpoint);
  client = createDynamoDbClient({
    endpoint: new URL(proxy.endpoint),
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    attemptTimeoutMs: 150,
    maxAttempts,
    backoffBaseMs: 1,
  });
});
afterAll(async () => {
  await proxy.close();
  await dynalite.close();
});
beforeEach(() => proxy.restore());

let lastId = 7_000_000;
const put = () =>
  client('PutItem', {
    TableName: dynalite.tableName,
    Item: { id: { N: String(++lastId) }, name: { S: 'Fern' } },
    ConditionExpression: 'attribute_not_exists(id)',
  });

/** How many requests the proxy saw while `act` ran, and what `act` threw, if anything. */
async function attemptsDuring(act: () => Promise<unknown>) {
  const before = proxy.requests().length;
  const failure = await act().then(
    () => undefined,
    (error: unknown) => error,
  );
  return { attempts: proxy.requests().length - before, failure };
}

describe('createDynamoDbClient', () => {
  it('sends a signed JSON-protocol call and returns the answer', async () => {
    const id = String(lastId + 1);
    await put();

    const answer = await client('GetItem', {
      TableName: dynalite.tableName,
      Key: { id: { N: id } },
      ConsistentRead: true,
    });

    expect(answer).toStrictEqual({ Item: { id: { N: id }, name: { S: 'Fern' } } });
  });

  it('throws what DynamoDB means, such as a failed condition, after one attempt', async () => {
    const id = String(++lastId);
    const item = { TableName: dynalite.tableName, Item: { id: { N: id } } };
    await client('PutItem', item);

    const { attempts, failure } = await attemptsDuring(() =>
      client('PutItem', { ...item, ConditionExpression: 'attribute_not_exists(id)' }),
    );

    expect(attempts).toBe(1);
    expect(failure).toBeInstanceOf(DynamoDbServiceError);
    expect(failure).toMatchObject({ statusCode: 400, type: 'ConditionalCheckFailedException' });
  });

  it.each<[string, Fault]>([
    ['throttled', { kind: 'dynamoError', status: 400, type: 'ThrottlingException' }],
    ['a 500', { kind: 'dynamoError', status: 500, type: 'InternalServerError' }],
    ['an HTML error page', { kind: 'http500' }],
    ['a reset connection', { kind: 'reset' }],
    ['an attempt that never answers', { kind: 'hang' }],
  ])(`gives up after ${maxAttempts} attempts when every one is %s`, async (_case, fault) => {
    await proxy.inject(fault);

    const { attempts, failure } = await attemptsDuring(put);

    expect(attempts).toBe(maxAttempts);
    expect(failure).toBeInstanceOf(DynamoDbUnavailableError);
    expect(failure).toMatchObject({ attempts: maxAttempts });
  });

  it('answers from a later attempt when an earlier one failed', async () => {
    await proxy.inject({ kind: 'reset' }, { times: 1 });

    const { attempts, failure } = await attemptsDuring(put);

    expect(attempts).toBe(2);
    expect(failure).toBeUndefined();
  });
});
