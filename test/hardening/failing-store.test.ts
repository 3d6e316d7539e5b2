import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import fc from 'fast-check';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { checksOf, operations } from '../../functions/operations.ts';
import { expectErrorShape, hygieneHeaders } from '../support/contract.ts';
import { fakeDeleteEvent, fakeEvent, fakeOperationEvent } from '../support/fake-event.ts';
import type { Fault, FaultProxy } from '../support/fault-proxy.ts';
import { bodyOf, type PlantApiHarness, startPlantApi } from '../support/plant-api-harness.ts';

/** Small client timings, so that each exhausted retry costs well under a second. */
const client = { attemptTimeoutMs: 150, maxAttempts: 3, backoffBaseMs: 10 } as const;
/** Three timed-out attempts, two full-jitter waits (at most 10 and 20 ms), and slack for a busy CI. */
const exhaustedWithinMs = client.maxAttempts * client.attemptTimeoutMs + 30 + 600;

let api: PlantApiHarness;
let proxy: FaultProxy;
let token: string;
const freshId = () => api.freshId();

beforeAll(async () => {
  api = await startPlantApi({ faultProxy: true, dynamodb: client });
  if (!api.proxy) throw new Error('the harness started no fault proxy');
  proxy = api.proxy;
  token = await api.issuer.mint({ expiresIn: 3600 });
});
afterAll(() => api.close());
beforeEach(() => proxy.restore());

const create = async (id: string, name: string, tag?: string) => {
  const body = JSON.stringify(tag === undefined ? { name } : { name, tag }).replace(
    '{',
    `{"id":${id},`,
  );
  const started = performance.now();
  const result = await api.invoke(fakeEvent({ token, body }));
  return { result, elapsedMs: performance.now() - started };
};

const stored = (id: string) => api.dynalite.getItem(api.tableName, id);
const putAttempts = (since: number) =>
  proxy
    .requests()
    .slice(since)
    .filter((request) => request.operation === 'PutItem').length;

function expectUnavailable(result: APIGatewayProxyStructuredResultV2) {
  expect(result.statusCode).toBe(503);
  expect(result.headers).toMatchObject({ ...hygieneHeaders, 'retry-after': '1' });
  expectErrorShape(bodyOf(result), 503);
  expect(result.body).not.toMatch(/dynamo|exception|amz|ECONN|timed out/i);
}

const throttled = (type: string): Fault => ({ kind: 'dynamoError', status: 400, type });

describe('POST /plants when every write attempt fails', () => {
  it.each<[string, Fault]>([
    [
      'throttled (ProvisionedThroughputExceededException)',
      throttled('ProvisionedThroughputExceededException'),
    ],
    ['throttled (ThrottlingException)', throttled('ThrottlingException')],
    ['throttled (RequestLimitExceeded)', throttled('RequestLimitExceeded')],
    [
      'a DynamoDB 500 InternalServerError',
      { kind: 'dynamoError', status: 500, type: 'InternalServerError' },
    ],
    [
      'a DynamoDB 503 ServiceUnavailable',
      { kind: 'dynamoError', status: 503, type: 'ServiceUnavailable' },
    ],
    ['a raw HTTP 500 with an HTML body', { kind: 'http500' }],
    ['a connection reset', { kind: 'reset' }],
    ['a connection that never answers (timeout)', { kind: 'hang' }],
    ['a delay longer than the attempt timeout', { kind: 'delay', ms: 400 }],
  ])(
    'answers 503 with Retry-After after bounded retries when %s, and writes nothing',
    async (_case, fault) => {
      const id = freshId();
      const before = proxy.requests().length;
      await proxy.inject(fault, { operation: 'PutItem' });

      const { result, elapsedMs } = await create(id, 'Unlucky');

      expectUnavailable(result);
      // Every attempt the client allows, bar one a loaded machine's deadline can cut off.
      expect(putAttempts(before)).toBeGreaterThanOrEqual(client.maxAttempts - 1);
      expect(putAttempts(before)).toBeLessThanOrEqual(client.maxAttempts);
      expect(elapsedMs).toBeLessThan(exhaustedWithinMs);
      await proxy.restore();
      expect(await stored(id)).toBeUndefined();
    },
  );

  it('answers 503 with Retry-After when the connection is refused, and writes nothing', async () => {
    const id = freshId();
    await proxy.refuse();

    const { result, elapsedMs } = await create(id, 'Refused');

    expectUnavailable(result);
    expect(elapsedMs).toBeLessThan(exhaustedWithinMs);
    await proxy.restore();
    expect(await stored(id)).toBeUndefined();
  });

  it('logs the 503 as a dependency failure with the request id, without the request data', async () => {
    api.logs.length = 0;
    await proxy.inject(throttled('ThrottlingException'));

    await create(freshId(), 'Logged-name-7c1');

    const warning = api.logs.find((line) => line.message === 'dependency unavailable');
    expect(warning?.fields).toMatchObject({ status: 503, requestId: expect.any(String) });
    expect(JSON.stringify(api.logs)).not.toContain('Logged-name-7c1');
  });
});

describe.each(operations)('$method $path ($name) when every store attempt fails', (operation) => {
  const actions = new Set(
    operation.dynamodbActions.map((action) => action.replace(/^dynamodb:/, '')),
  );
  const attempts = (since: number) =>
    proxy
      .requests()
      .slice(since)
      .filter((request) => actions.has(request.operation ?? '')).length;

  it.each<[string, Fault]>([
    ['throttled (ThrottlingException)', throttled('ThrottlingException')],
    ['a raw HTTP 500 with an HTML body', { kind: 'http500' }],
    ['a connection reset', { kind: 'reset' }],
    ['a connection that never answers (timeout)', { kind: 'hang' }],
  ])('answers 503 with Retry-After after bounded retries when %s', async (_case, fault) => {
    const id = freshId();
    expect((await create(id, 'Kept')).result.statusCode).toBe(200);
    const scoped = await api.issuer.mint({ claims: { scope: operation.scope }, expiresIn: 60 });
    const before = proxy.requests().length;
    await proxy.inject(fault);

    const started = performance.now();
    const result = await api.handlers[operation.name](
      fakeOperationEvent(operation, checksOf(operation).sample.request(id), { token: scoped }),
    );
    const elapsedMs = performance.now() - started;

    expectUnavailable(result);
    expect(attempts(before)).toBe(client.maxAttempts);
    expect(elapsedMs).toBeLessThan(exhaustedWithinMs);
    await proxy.restore();
    expect(await stored(id)).toStrictEqual({ id: { N: id }, name: { S: 'Kept' } });
  });
});

describe('DELETE /plants/{id} when an answer is lost', () => {
  it('answers a delete whose answer is lost 503, and its retry 204, the plant gone and free to create again', async () => {
    const id = freshId();
    expect((await create(id, 'Doomed')).result.statusCode).toBe(200);
    await proxy.inject({ kind: 'forwardThenDrop' }, { operation: 'DeleteItem' });

    const lost = await api.handlers['delete-plant'](fakeDeleteEvent(id, { token }));
    await proxy.restore();
    const retried = await api.handlers['delete-plant'](fakeDeleteEvent(id, { token }));
    const { result: again } = await create(id, 'Reborn');

    expectUnavailable(lost);
    expect(retried.statusCode).toBe(204);
    expect(again.statusCode).toBe(200);
    expect(await stored(id)).toStrictEqual({ id: { N: id }, name: { S: 'Reborn' } });
  });
});

describe('POST /plants when the store recovers within the retries', () => {
  it.each<[string, Fault]>([
    ['two throttles', throttled('ProvisionedThroughputExceededException')],
    ['two timeouts', { kind: 'hang' }],
    ['two resets', { kind: 'reset' }],
    ['two raw 500s', { kind: 'http500' }],
  ])('answers 200 and stores the plant once after %s', async (_case, fault) => {
    const id = freshId();
    const before = proxy.requests().length;
    await proxy.inject(fault, { operation: 'PutItem', times: 2 });

    const { result } = await create(id, 'Persistent');

    expect(result.statusCode).toBe(200);
    expect(putAttempts(before)).toBe(3);
    expect(await stored(id)).toStrictEqual({ id: { N: id }, name: { S: 'Persistent' } });
  });

  it('answers 200 when the store is slow but within the attempt timeout', async () => {
    const id = freshId();
    await proxy.inject({ kind: 'delay', ms: 40 });

    const { result } = await create(id, 'Slow');

    expect(result.statusCode).toBe(200);
    expect(await stored(id)).toStrictEqual({ id: { N: id }, name: { S: 'Slow' } });
  });
});

describe('POST /plants when a write may or may not have happened (its answer is lost)', () => {
  it('answers 503, and the identical retry gets 200 without a duplicate or an overwrite', async () => {
    const id = freshId();
    await proxy.inject({ kind: 'forwardThenDrop' }, { operation: 'PutItem' });

    const { result: first } = await create(id, 'Ambiguous', 'maybe');
    await proxy.restore();
    const { result: retry } = await create(id, 'Ambiguous', 'maybe');

    expectUnavailable(first);
    expect(retry.statusCode).toBe(200);
    expect(bodyOf(retry)).toStrictEqual({ name: 'Ambiguous', tag: 'maybe' });
    expect(await stored(id)).toStrictEqual({
      id: { N: id },
      name: { S: 'Ambiguous' },
      tag: { S: 'maybe' },
    });
  });

  it('answers 409 to a different create after the lost answer, and keeps the first plant', async () => {
    const id = freshId();
    await proxy.inject({ kind: 'forwardThenDrop' }, { operation: 'PutItem' });
    await create(id, 'First');
    await proxy.restore();

    const { result } = await create(id, 'Second');

    expect(result.statusCode).toBe(409);
    expect(await stored(id)).toStrictEqual({ id: { N: id }, name: { S: 'First' } });
  });

  it('answers 200 when its own retry finds the write that lost its answer', async () => {
    const id = freshId();
    await proxy.inject({ kind: 'forwardThenDrop' }, { operation: 'PutItem', times: 1 });

    const { result } = await create(id, 'Self-healed');

    expect(result.statusCode).toBe(200);
    expect(bodyOf(result)).toStrictEqual({ name: 'Self-healed' });
    expect(await stored(id)).toStrictEqual({ id: { N: id }, name: { S: 'Self-healed' } });
  });
});

describe('POST /plants when the condition fails', () => {
  const conditionFailed: Fault = {
    kind: 'dynamoError',
    status: 400,
    type: 'ConditionalCheckFailedException',
  };

  it('answers 503 with Retry-After, never a false 200, when the failed condition returns no old item', async () => {
    const id = freshId();
    await proxy.inject(conditionFailed, { operation: 'PutItem', times: 1 });

    const { result } = await create(id, 'Phantom');

    expectUnavailable(result);
    expect(await stored(id)).toBeUndefined();
  });
});

describe('POST /plants under random faults', () => {
  /** Tighter timings still: each fault that waits for a timeout costs 3 x 40 ms. */
  let quick: PlantApiHarness;
  let quickProxy: FaultProxy;
  let quickToken: string;
  beforeAll(async () => {
    quick = await startPlantApi({
      faultProxy: true,
      dynamodb: { attemptTimeoutMs: 40, maxAttempts: 3, backoffBaseMs: 2 },
    });
    if (!quick.proxy) throw new Error('the harness started no fault proxy');
    quickProxy = quick.proxy;
    quickToken = await quick.issuer.mint({ expiresIn: 3600 });
  });
  afterAll(() => quick.close());

  /** Faults that cost no waiting are common; ones that wait for a timeout are rarer. */
  const fault: fc.Arbitrary<Fault> = fc.oneof(
    { weight: 4, arbitrary: fc.constant<Fault>({ kind: 'pass' }) },
    { weight: 3, arbitrary: fc.constant(throttled('ProvisionedThroughputExceededException')) },
    { weight: 2, arbitrary: fc.constant<Fault>({ kind: 'http500' }) },
    { weight: 2, arbitrary: fc.constant<Fault>({ kind: 'reset' }) },
    { weight: 1, arbitrary: fc.constant<Fault>({ kind: 'forwardThenDrop' }) },
    { weight: 1, arbitrary: fc.constant<Fault>({ kind: 'hang' }) },
  );
  const step = fc.record({
    id: fc.nat({ max: 2 }),
    name: fc.constantFrom('A', 'B'),
    fault,
    operation: fc.constantFrom('PutItem', 'GetItem', undefined),
    times: fc.integer({ min: 1, max: 3 }),
  });

  it('answers only 200, 409 or 503, never a false 200, and never changes a plant once answered 200', async () => {
    let faults = 0;

    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 5 }), async (steps) => {
        const ids = [freshId(), freshId(), freshId()];
        const sent = new Map<string, Set<string>>();
        const confirmed = new Map<string, string>();
        for (const { id: pick, name, fault: injected, operation, times } of steps) {
          const id = ids[pick] ?? '';
          if (injected.kind !== 'pass') faults += 1;
          await quickProxy.inject(injected, { operation, times });
          sent.set(id, (sent.get(id) ?? new Set()).add(name));

          const result = await quick.invoke(
            fakeEvent({ token: quickToken, body: `{"id":${id},"name":"${name}"}` }),
          );

          await quickProxy.restore();
          const item = (await quick.dynalite.getItem(quick.tableName, id)) as
            | { name?: { S: string } }
            | undefined;
          expect([200, 409, 503]).toContain(result.statusCode);
          if (result.statusCode === 200) {
            expect(item?.name?.S).toBe(name);
            expect(bodyOf(result)).toStrictEqual({ name });
          }
          if (result.statusCode === 409) expect(item?.name?.S).not.toBe(name);
          if (result.statusCode === 503) expect(result.headers?.['retry-after']).toBe('1');
          if (item) expect(sent.get(id)).toContain(item.name?.S);
          const first = confirmed.get(id);
          if (first !== undefined) expect(item?.name?.S).toBe(first);
          else if (result.statusCode === 200) confirmed.set(id, name);
        }
      }),
      { numRuns: Number(process.env.FC_FAULT_RUNS ?? 30) },
    );

    expect(faults).toBeGreaterThan(0);
    console.info(`random-fault property: ${faults} faults injected, all survived`);
  });
});

describe('POST /plants with the production client timings', () => {
  let production: PlantApiHarness;
  beforeAll(async () => {
    production = await startPlantApi({ faultProxy: true });
  });
  afterAll(() => production.close());

  it('gives up on a store that never answers within the function timeout (10 s), with 503', async () => {
    const bearer = await production.issuer.mint();
    await production.proxy?.inject({ kind: 'hang' });

    const started = performance.now();
    const result = await production.invoke(
      fakeEvent({ token: bearer, body: '{"id":1,"name":"Patient"}' }),
    );
    const elapsedMs = performance.now() - started;

    expectUnavailable(result);
    // 3 attempts of 800 ms and full-jitter waits of at most 100 and 200 ms.
    expect(elapsedMs).toBeGreaterThanOrEqual(3 * 800);
    expect(elapsedMs).toBeLessThan(3 * 800 + 300 + 700);
  });
});
