import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  createDynamoDbClient,
  type DynamoDbClient,
  type DynamoDbClientOptions,
  type DynamoDbOperation,
  DynamoDbServiceError,
} from '../../../functions/connections/dynamodb-client.ts';
import { createDynamoDbPlantStore } from '../../../functions/plants/dynamodb-plant-store.ts';
import { InvalidCursorError } from '../../../functions/plants/list-cursor.ts';
import type { NewPlant, Plant } from '../../../functions/plants/plant.ts';
import {
  PlantChangedError,
  PlantConflictError,
  PlantNotFoundError,
  StoreUnavailableError,
} from '../../../functions/plants/plant-errors.ts';
import { type PlantId, parsePlantId } from '../../../functions/plants/plant-id.ts';
import {
  asRevision,
  type ReplaceCondition,
  type Revision,
  unrevised,
} from '../../../functions/plants/plant-revision.ts';
import type { PlantPage, PlantStore, StoredPlant } from '../../../functions/plants/plant-store.ts';
import { type DynaliteServer, startDynalite } from '../../support/dynalite-server.ts';
import { type Fault, type FaultProxy, startFaultProxy } from '../../support/fault-proxy.ts';

type StoreUnderTest = {
  readonly dynalite: DynaliteServer;
  readonly proxy: FaultProxy;
  readonly store: PlantStore;
  /**
   * The operations the store sent to DynamoDB while `act` ran, as the proxy saw them. A failure
   * of `act` (an assertion in it included) fails the test: a case that expects one catches it.
   */
  callsDuring(act: () => Promise<unknown>): Promise<string[]>;
  /** Every request the store made, as it made it, in order. */
  readonly sent: {
    readonly operation: DynamoDbOperation;
    readonly input: Record<string, unknown>;
  }[];
  close(): Promise<void>;
};

type StoreOptions = {
  readonly client?: Pick<DynamoDbClientOptions, 'attemptTimeoutMs' | 'maxAttempts'>;
  /** Stands between the store and the real client, e.g. to give an answer DynamoDB documents. */
  readonly wrapClient?: (client: DynamoDbClient) => DynamoDbClient;
};

/** The store on a local DynamoDB that answers a failed condition as DynamoDB does (ALL_OLD). */
async function startStore(options: StoreOptions = {}): Promise<StoreUnderTest> {
  const dynalite = await startDynalite();
  const proxy = await startFaultProxy(dynalite.endpoint);
  const sent: StoreUnderTest['sent'] = [];
  const client = createDynamoDbClient({
    endpoint: new URL(proxy.endpoint),
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    backoffBaseMs: 1,
    ...options.client,
  });
  const recording: DynamoDbClient = (operation, input) => {
    sent.push({ operation, input });
    return client(operation, input);
  };
  const store = createDynamoDbPlantStore(
    options.wrapClient?.(recording) ?? recording,
    dynalite.tableName,
  );
  return {
    dynalite,
    proxy,
    store,
    sent,
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

describe('DynamoDbPlantStore.create', () => {
  let subject: StoreUnderTest;
  beforeAll(async () => {
    subject = await startStore();
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
  ])('recognises a replay %s, in one call', async (_case, plant) => {
    const id = freshId();
    await create({ id, ...plant });
    let result: unknown;

    const calls = await subject.callsDuring(async () => {
      result = await create({ id, ...plant });
    });

    expect(result).toStrictEqual({ plant, outcome: 'replayed' });
    expect(calls).toStrictEqual(['PutItem']);
  });

  it.each<[string, Plant, Plant]>([
    ['another name', { name: 'Fern' }, { name: 'Moss' }],
    ['another tag', { name: 'Fern', tag: 'indoor' }, { name: 'Fern', tag: 'outdoor' }],
    ['a stored tag left out', { name: 'Fern', tag: 'indoor' }, { name: 'Fern' }],
    ['a tag added', { name: 'Fern' }, { name: 'Fern', tag: 'indoor' }],
  ])(
    'refuses %s as a conflict, in one call, and keeps the stored plant',
    async (_case, first, second) => {
      const id = freshId();
      await create({ id, ...first });
      let failure: unknown;

      const calls = await subject.callsDuring(async () => {
        failure = await create({ id, ...second }).catch((error: unknown) => error);
      });

      expect(failure).toBeInstanceOf(PlantConflictError);
      expect(calls).toStrictEqual(['PutItem']);
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
    expect(calls).toStrictEqual(['PutItem']);
    expect(await stored(id)).toBeUndefined();
  });
});

const plantId = (id: string): PlantId => parsePlantId(id);
const storedPlant = (id: string, plant: Plant): StoredPlant => ({ id: plantId(id), ...plant });
const byId = (a: { id: string }, b: { id: string }) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1);

/** Every page of a walk from the first, following `next` until there is none. */
async function walk(
  store: PlantStore,
  limit: number,
  between: (page: PlantPage, index: number) => Promise<void> = async () => {},
): Promise<PlantPage[]> {
  const pages: PlantPage[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.list({ limit, cursor });
    pages.push(page);
    cursor = page.next;
    if (cursor !== undefined) await between(page, pages.length - 1);
  } while (cursor !== undefined && pages.length <= 10_000);
  return pages;
}

const listed = (pages: readonly PlantPage[]) => pages.flatMap(({ plants }) => plants);

describe('DynamoDbPlantStore.list', () => {
  let subject: StoreUnderTest;
  let foreign: StoreUnderTest;
  /** What the table holds, kept in step by `holding`. */
  const held = new Map<string, StoredPlant>();
  let nextId = 7_000_000_000n;
  beforeAll(async () => {
    [subject, foreign] = await Promise.all([startStore(), startStore()]);
  });
  afterAll(() => Promise.all([subject.close(), foreign.close()]));

  /** Creates or deletes plants until the table holds exactly `count`. */
  async function holding(count: number) {
    while (held.size < count) {
      nextId += 1n;
      const plant = storedPlant(String(nextId), { name: `Plant ${nextId}` });
      await subject.store.create(plant);
      held.set(plant.id, plant);
    }
    for (const id of [...held.keys()].slice(count)) {
      await subject.store.delete(plantId(id));
      held.delete(id);
    }
  }

  it('walks tables of 0 to 7 plants at every limit: each plant once, full pages, no empty last page', async () => {
    for (let count = 0; count <= 7; count++) {
      await holding(count);
      for (let limit = 1; limit <= count + 1; limit++) {
        const sentBefore = subject.sent.length;

        const pages = await walk(subject.store, limit);

        const expectedPages = Math.max(1, Math.ceil(count / limit));
        expect(pages).toHaveLength(expectedPages);
        pages.forEach((page, index) => {
          const last = index === expectedPages - 1;
          expect(page.plants).toHaveLength(last ? count - limit * index : limit);
          expect(page.next === undefined).toBe(last);
        });
        expect(listed(pages).sort(byId)).toStrictEqual([...held.values()].sort(byId));
        expect(subject.sent.slice(sentBefore).map(({ operation }) => operation)).toStrictEqual(
          pages.map(() => 'Scan'),
        );
      }
    }
  });

  it('reads each page with one consistent Scan of one plant more than the limit, going on after the cursor', async () => {
    await holding(5);
    const sentBefore = subject.sent.length;

    const pages = await walk(subject.store, 2);

    const scans = subject.sent.slice(sentBefore).map(({ input }) => input);
    expect(scans).toHaveLength(3);
    expect(scans[0]).toStrictEqual({
      TableName: subject.dynalite.tableName,
      Limit: 3,
      ConsistentRead: true,
    });
    for (const [index, scan] of scans.slice(1).entries()) {
      const lastBefore = pages[index]?.plants.at(-1)?.id ?? '';
      expect(scan).toStrictEqual({
        TableName: subject.dynalite.tableName,
        Limit: 3,
        ConsistentRead: true,
        ExclusiveStartKey: { id: { N: lastBefore } },
      });
    }
  });

  it('lists exact ids across the int64 range, with a tag only where one is stored', async () => {
    await holding(0);
    const plants = [
      storedPlant('9223372036854775807', { name: 'Max', tag: 'top' }),
      storedPlant('9223372036854775806', { name: 'Max minus one' }),
      storedPlant('-9223372036854775808', { name: 'Min', tag: 'bottom' }),
      storedPlant('9007199254740993', { name: 'Past 2^53' }),
      storedPlant('0', { name: 'Zero' }),
    ];
    for (const plant of plants) await subject.store.create(plant);

    const items = listed(await walk(subject.store, 2));

    expect(items.sort(byId)).toStrictEqual([...plants].sort(byId));
    for (const plant of plants) await subject.store.delete(plant.id);
  });

  it('goes on after a cursor whose own plant was deleted meanwhile', async () => {
    await holding(6);

    const pages = await walk(subject.store, 2, async (page) => {
      const last = page.plants.at(-1);
      if (last !== undefined) {
        await subject.store.delete(last.id);
        held.delete(last.id);
      }
    });

    const ids = listed(pages).map(({ id }) => id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toHaveLength(6);
  });

  it('lists every plant present throughout a walk exactly once while others are created and deleted between its pages', async () => {
    await holding(12);
    const throughout = new Map(held);
    const history = new Map<string, StoredPlant>(held);
    const transient: StoredPlant[] = [];
    let created = 0;

    const pages = await walk(subject.store, 3, async (_page, index) => {
      for (let n = 0; n < 3; n++) {
        nextId += 1n;
        const plant = storedPlant(String(nextId), { name: `Passing ${nextId}`, tag: 'transient' });
        await subject.store.create(plant);
        history.set(plant.id, plant);
        transient.push(plant);
        created += 1;
      }
      // Delete an older passer-by, and one re-created under another name.
      const gone = transient.shift();
      if (gone !== undefined) await subject.store.delete(gone.id);
      if (index % 2 === 0 && transient[0] !== undefined) {
        const renamed = { ...transient[0], name: `Renamed ${transient[0].id}` };
        await subject.store.delete(renamed.id);
        await subject.store.create(renamed);
        transient[0] = renamed;
      }
    });

    const items = listed(pages);
    const ids = items.map(({ id }) => id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const plant of throughout.values()) {
      expect(items.filter(({ id }) => id === plant.id)).toStrictEqual([plant]);
    }
    for (const item of items) {
      const known = history.get(item.id);
      expect(known).toBeDefined();
      if (!throughout.has(item.id)) {
        expect(item.tag).toBe('transient');
        expect([known?.name, `Renamed ${item.id}`]).toContain(item.name);
      }
    }
    expect(created).toBeGreaterThan(0);
    for (const plant of transient) await subject.store.delete(plant.id);
  });

  it.each([[0], [-1], [1.5], [Number.NaN], [501], [2 ** 31]])(
    'refuses limit %s as a programming error, before calling DynamoDB',
    async (limit) => {
      const calls = await subject.callsDuring(async () => {
        await expect(subject.store.list({ limit })).rejects.toThrow(RangeError);
      });

      expect(calls).toStrictEqual([]);
    },
  );

  it('reads a page of the largest limit with one Scan', async () => {
    await holding(3);
    const sentBefore = subject.sent.length;

    const page = await subject.store.list({ limit: 500 });

    expect(page.plants).toHaveLength(3);
    expect(page.next).toBeUndefined();
    expect(subject.sent.slice(sentBefore).map(({ input }) => input.Limit)).toStrictEqual([501]);
  });

  describe('with a cursor it did not issue for this listing', () => {
    let issued: string;
    let foreignCursor: string;
    beforeAll(async () => {
      await holding(4);
      issued = (await subject.store.list({ limit: 2 })).next ?? '';
      await foreign.store.create({ id: String(nextId), name: 'Same id, other table' });
      await foreign.store.create({ id: String(nextId + 1n), name: 'Other table' });
      foreignCursor = (await foreign.store.list({ limit: 1 })).next ?? '';
    });

    const tamperedByte = () => {
      const bytes = Buffer.from(issued, 'base64url');
      bytes[5] = (bytes[5] ?? 0) ^ 0x01;
      return bytes.toString('base64url');
    };

    it.each<[string, () => string, number]>([
      ['garbage', () => 'garbage', 2],
      ['an empty cursor', () => '', 2],
      ['a truncated cursor', () => issued.slice(0, -1), 2],
      ['a cursor cut in half', () => issued.slice(0, issued.length / 2), 2],
      ['a cursor with one byte changed', tamperedByte, 2],
      [
        'a cursor with one character changed',
        () => `${issued.slice(0, 10)}${issued[10] === 'A' ? 'B' : 'A'}${issued.slice(11)}`,
        2,
      ],
      ['a cursor from another table', () => foreignCursor, 1],
      ['a cursor issued for another limit', () => issued, 3],
    ])(
      'refuses %s with InvalidCursorError, before calling DynamoDB',
      async (_case, cursor, limit) => {
        let failure: unknown;

        const calls = await subject.callsDuring(async () => {
          failure = await subject.store
            .list({ limit, cursor: cursor() })
            .catch((error: unknown) => error);
        });

        expect(failure).toBeInstanceOf(InvalidCursorError);
        expect((failure as InvalidCursorError).field).toBe('cursor');
        expect(String((failure as Error).message)).not.toMatch(/\d{6,}/);
        expect(calls).toStrictEqual([]);
      },
    );

    it('still takes the untouched cursor with its own limit', async () => {
      expect(issued).toMatch(/^[\w-]{39}$/);
      await expect(subject.store.list({ limit: 2, cursor: issued })).resolves.toMatchObject({
        plants: expect.any(Array),
      });
    });
  });
});

describe('DynamoDbPlantStore.list when a Scan stops short of its limit, as DynamoDB does at 1 MB read', () => {
  let subject: StoreUnderTest;
  beforeAll(async () => {
    // dynalite stops at 1 MB too, but its answer then exceeds the client's answer cap; plants of
    // this store are small enough never to reach it. The real answer is cut the way DynamoDB
    // cuts it: fewer items, and LastEvaluatedKey the key of the last one read.
    subject = await startStore({
      wrapClient: (client) => async (operation, input) => {
        const answer = await client(operation, input);
        const items = answer.Items as { id: unknown }[] | undefined;
        if (operation !== 'Scan' || items === undefined || items.length < 2) return answer;
        const kept = items.slice(0, 2);
        return { ...answer, Items: kept, LastEvaluatedKey: { id: kept[1]?.id } };
      },
    });
    for (let n = 1; n <= 7; n++)
      await subject.store.create({ id: String(8_000_000_000 + n), name: `Short ${n}` });
  });
  afterAll(() => subject.close());

  it('ends a short page on the last key read and goes on from there, losing and repeating nothing', async () => {
    const pages = await walk(subject.store, 4);

    expect(pages.map(({ plants }) => plants.length)).toStrictEqual([2, 2, 2, 1]);
    expect(
      listed(pages)
        .map(({ id }) => id)
        .sort(),
    ).toStrictEqual(Array.from({ length: 7 }, (_, n) => String(8_000_000_001 + n)));
  });
});

describe('DynamoDbPlantStore.list over items the API would not write', () => {
  let subject: StoreUnderTest;
  beforeAll(async () => {
    subject = await startStore();
  });
  afterAll(() => subject.close());

  const put = (item: Record<string, { S: string } | { N: string }>) =>
    subject.dynalite.putItem(subject.dynalite.tableName, item);
  const keyProblem = 'its key is not an int64 in canonical form';
  const damagedItems = [
    [{ id: { N: '0.5' }, name: { S: 'Half' } }, keyProblem],
    [{ id: { N: '9223372036854775808' }, name: { S: 'Past int64' } }, keyProblem],
    [{ id: { N: '-9223372036854775809' }, name: { S: 'Below int64' } }, keyProblem],
    [{ id: { N: '1e30' }, name: { S: 'Far past' } }, keyProblem],
    [{ id: { N: '9100000001' } }, 'it has no name as text'],
    [{ id: { N: '9100000002' }, name: { N: '2' } }, 'it has no name as text'],
    [{ id: { N: '9100000003' }, name: { S: 'Fern' }, tag: { N: '3' } }, 'its tag is not text'],
  ] as const;
  /** The reports of every page, by key. */
  const reported = (pages: readonly PlantPage[]) =>
    new Map(pages.flatMap(({ damaged = [] }) => damaged.map((item) => [item.key, item])));

  it('answers a table of damaged items only with one empty last page that names each, not a failure', async () => {
    for (const [item] of damagedItems.slice(0, 3)) await put(item);
    const sentBefore = subject.sent.length;

    const page = await subject.store.list({ limit: 1 });

    expect(page.plants).toStrictEqual([]);
    expect(page.next).toBeUndefined();
    expect(new Set(page.damaged?.map(({ key }) => key))).toStrictEqual(
      new Set(['0.5', '9223372036854775808', '-9223372036854775809']),
    );
    // Two damaged items fill the first Scan; the one after it reads on, a largest page at once.
    expect(subject.sent.slice(sentBefore).map(({ input }) => input.Limit)).toStrictEqual([2, 501]);
  });

  it('walks past damaged items at every limit: each plant once, each damaged item reported as it is stored', async () => {
    for (const [item] of damagedItems) await put(item);
    const plants = Array.from({ length: 6 }, (_, n) =>
      storedPlant(String(9_200_000_000 + n), { name: `Plant ${n}`, tag: 'kept' }),
    );
    for (const plant of plants) await subject.store.create(plant);

    for (let limit = 1; limit <= 14; limit++) {
      const pages = await walk(subject.store, limit);

      expect(listed(pages).sort(byId), `limit ${limit}`).toStrictEqual([...plants].sort(byId));
      expect(pages.every((page) => page.plants.length <= limit)).toBe(true);
      const reports = reported(pages);
      expect(reports.size, `limit ${limit}`).toBe(damagedItems.length);
      for (const [item, problem] of damagedItems) {
        // The key as the table writes the number back (1e30 in full), and what is wrong with it.
        const key = item.id.N === '1e30' ? `1${'0'.repeat(30)}` : item.id.N;
        expect(reports.get(key)).toStrictEqual({ key, problem });
      }
    }
  });
});

describe('DynamoDbPlantStore.delete', () => {
  let subject: StoreUnderTest;
  beforeAll(async () => {
    subject = await startStore();
  });
  afterAll(() => subject.close());

  const stored = (id: string) => subject.dynalite.getItem(subject.dynalite.tableName, id);
  const remove = (id: string) => subject.store.delete(plantId(id));

  it('deletes a stored plant with one DeleteItem and says it did', async () => {
    const id = freshId();
    await subject.store.create({ id, name: 'Fern', tag: 'indoor' });
    let result: unknown;

    const calls = await subject.callsDuring(async () => {
      result = await remove(id);
    });

    expect(result).toStrictEqual({ deleted: true });
    expect(calls).toStrictEqual(['DeleteItem']);
    expect(await stored(id)).toBeUndefined();
  });

  it('succeeds on an id never stored, and on one deleted before, saying nothing was deleted', async () => {
    const id = freshId();

    expect(await remove(id)).toStrictEqual({ deleted: false });
    await subject.store.create({ id, name: 'Once' });
    expect(await remove(id)).toStrictEqual({ deleted: true });
    expect(await remove(id)).toStrictEqual({ deleted: false });
    expect(await stored(id)).toBeUndefined();
  });

  it('deletes only the id it is given, at both ends of the int64 range', async () => {
    const kept = ['9223372036854775806', '-9223372036854775807'];
    for (const id of ['9223372036854775807', '-9223372036854775808', ...kept]) {
      await subject.store.delete(plantId(id));
      await subject.store.create({ id, name: `Edge ${id}` });
    }

    expect(await remove('9223372036854775807')).toStrictEqual({ deleted: true });
    expect(await remove('-9223372036854775808')).toStrictEqual({ deleted: true });

    expect(await stored('9223372036854775807')).toBeUndefined();
    expect(await stored('-9223372036854775808')).toBeUndefined();
    for (const id of kept) expect(await stored(id)).toMatchObject({ id: { N: id } });
  });

  it('lets exactly one of concurrent deletes of one id find the plant', async () => {
    const id = freshId();
    await subject.store.create({ id, name: 'Contested' });

    const results = await Promise.all(Array.from({ length: 8 }, () => remove(id)));

    expect(results.filter(({ deleted }) => deleted)).toHaveLength(1);
    expect(await stored(id)).toBeUndefined();
  });

  describe('with a condition, as a replace takes it', () => {
    const revisionOf = async (id: string) =>
      asRevision((await subject.dynalite.getRevision(subject.dynalite.tableName, id)) ?? '0');
    const other = asRevision('AAAAAAAAAAAAAAAAAAAAAA') as Revision;

    it.each<[string, (current: Revision) => ReplaceCondition]>([
      ['any revision', () => ({ kind: 'any' })],
      ['its revision', (current) => ({ kind: 'one-of', revisions: [current] })],
      [
        'a list holding its revision',
        (current) => ({ kind: 'one-of', revisions: [other, current] }),
      ],
    ])('deletes a stored plant meeting %s with one DeleteItem', async (_case, condition) => {
      const id = freshId();
      await subject.store.create({ id, name: 'Fern' });
      const current = (await revisionOf(id)) as Revision;
      let result: unknown;

      const calls = await subject.callsDuring(async () => {
        result = await subject.store.delete(plantId(id), condition(current));
      });

      expect(result).toStrictEqual({ deleted: true });
      expect(calls).toStrictEqual(['DeleteItem']);
      expect(await stored(id)).toBeUndefined();
    });

    it('deletes a plant stored without a revision when the condition names unrevised', async () => {
      const id = freshId();
      await subject.dynalite.putItem(subject.dynalite.tableName, {
        id: { N: id },
        name: { S: 'Old' },
      });

      const result = await subject.store.delete(plantId(id), {
        kind: 'one-of',
        revisions: [unrevised],
      });

      expect(result).toStrictEqual({ deleted: true });
      expect(await stored(id)).toBeUndefined();
    });

    it.each<[string, ReplaceCondition]>([
      ['another revision', { kind: 'one-of', revisions: [other] }],
      ['no revision at all', { kind: 'one-of', revisions: [] }],
      ['unrevised, of a plant that has a revision', { kind: 'one-of', revisions: [unrevised] }],
    ])(
      'refuses a stored plant asked for %s, in one call, and keeps it',
      async (_case, condition) => {
        const id = freshId();
        await subject.store.create({ id, name: 'Fern' });
        let failure: unknown;

        const calls = await subject.callsDuring(async () => {
          failure = await subject.store.delete(plantId(id), condition).catch((error) => error);
        });

        // Told apart from an absent plant by the old item the failed condition returns.
        expect(failure).toBeInstanceOf(PlantChangedError);
        expect(calls).toStrictEqual(['DeleteItem']);
        expect(await stored(id)).toStrictEqual({ id: { N: id }, name: { S: 'Fern' } });
      },
    );

    it.each<[string, ReplaceCondition]>([
      ['any revision', { kind: 'any' }],
      ['a revision', { kind: 'one-of', revisions: [other] }],
    ])(
      'refuses an id no plant has, asked for %s, as not found, and creates nothing',
      async (_case, condition) => {
        const id = freshId();

        const failure = await subject.store
          .delete(plantId(id), condition)
          .catch((error: unknown) => error);

        expect(failure).toBeInstanceOf(PlantNotFoundError);
        expect(await stored(id)).toBeUndefined();
      },
    );

    it('lets exactly one of concurrent deletes with the same revision delete the plant', async () => {
      const id = freshId();
      await subject.store.create({ id, name: 'Contested' });
      const condition: ReplaceCondition = {
        kind: 'one-of',
        revisions: [(await revisionOf(id)) as Revision],
      };

      const results = await Promise.allSettled(
        Array.from({ length: 8 }, () => subject.store.delete(plantId(id), condition)),
      );

      expect(results.filter(({ status }) => status === 'fulfilled')).toHaveLength(1);
      for (const result of results) {
        if (result.status === 'rejected') expect(result.reason).toBeInstanceOf(PlantNotFoundError);
      }
      expect(await stored(id)).toBeUndefined();
    });
  });

  it('lets the id be created again, with another name and tag, after a delete', async () => {
    const id = freshId();
    await subject.store.create({ id, name: 'Fern', tag: 'indoor' });
    await remove(id);

    const result = await subject.store.create({ id, name: 'Moss' });

    expect(result).toStrictEqual({ plant: { name: 'Moss' }, outcome: 'created' });
    expect(await stored(id)).toStrictEqual({ id: { N: id }, name: { S: 'Moss' } });
  });

  it('never leaves a created plant half-written when a delete races its create', async () => {
    for (let round = 0; round < 20; round++) {
      const id = freshId();
      const plant = { name: `Racing ${round}`, tag: 'race' };

      const [created, deleted] = await Promise.all([
        subject.store.create({ id, ...plant }),
        remove(id),
      ]);

      expect(created.outcome).toBe('created');
      // The delete ran after the create (and took it whole) or before it (and found nothing).
      expect(await stored(id)).toStrictEqual(
        deleted.deleted
          ? undefined
          : { id: { N: id }, name: { S: plant.name }, tag: { S: 'race' } },
      );
    }
  });

  it('answers a replay racing a delete as one order of the two would', async () => {
    for (let round = 0; round < 20; round++) {
      const id = freshId();
      const plant = { name: `Replayed ${round}` };
      await subject.store.create({ id, ...plant });

      const [replay, deleted] = await Promise.all([
        subject.store.create({ id, ...plant }).catch((error: unknown) => error),
        remove(id),
      ]);

      expect(deleted).toStrictEqual({ deleted: true });
      // Created again after the delete, or replayed before it: the failed condition returns
      // the item it was checked against, so a replay never finds a plant already deleted.
      const { outcome } = replay as { outcome: string };
      expect(['created', 'replayed']).toContain(outcome);
      expect(await stored(id)).toStrictEqual(
        outcome === 'created' ? { id: { N: id }, name: { S: plant.name } } : undefined,
      );
    }
  });
});

describe('DynamoDbPlantStore.list and .delete when DynamoDB is unavailable', () => {
  let subject: StoreUnderTest;
  beforeAll(async () => {
    subject = await startStore({ client: { attemptTimeoutMs: 150, maxAttempts: 3 } });
  });
  afterAll(() => subject.close());
  beforeEach(() => subject.proxy.restore());

  const stored = (id: string) => subject.dynalite.getItem(subject.dynalite.tableName, id);
  const operations = [
    ['list', 'Scan', () => subject.store.list({ limit: 5 })],
    ['delete', 'DeleteItem', () => subject.store.delete(plantId(freshId()))],
  ] as const;

  describe.each(operations)('%s', (_name, operation, call) => {
    it.each<[string, Fault]>([
      [
        'throttled (ThrottlingException)',
        { kind: 'dynamoError', status: 400, type: 'ThrottlingException' },
      ],
      [
        'throttled (ProvisionedThroughputExceededException)',
        { kind: 'dynamoError', status: 400, type: 'ProvisionedThroughputExceededException' },
      ],
      ['a DynamoDB 500', { kind: 'dynamoError', status: 500, type: 'InternalServerError' }],
      ['a raw HTTP 500', { kind: 'http500' }],
      ['a connection reset', { kind: 'reset' }],
      ['a connection that never answers', { kind: 'hang' }],
    ])(
      `reports the store unavailable after every ${operation} attempt met %s`,
      async (_case, fault) => {
        await subject.proxy.inject(fault, { operation });
        let failure: unknown;

        const calls = await subject.callsDuring(async () => {
          failure = await call().catch((error: unknown) => error);
        });

        expect(failure).toBeInstanceOf(StoreUnavailableError);
        expect(calls).toStrictEqual([operation, operation, operation]);
      },
    );

    it(`reports the store unavailable when the connection is refused`, async () => {
      await subject.proxy.refuse();

      const failure = await call().catch((error: unknown) => error);

      expect(failure).toBeInstanceOf(StoreUnavailableError);
    });

    it('answers once a retry gets through', async () => {
      await subject.proxy.inject({ kind: 'reset' }, { operation, times: 2 });

      await expect(call()).resolves.toBeDefined();
    });

    it('passes on an error DynamoDB means, which is not unavailability', async () => {
      await subject.proxy.inject(
        { kind: 'dynamoError', status: 400, type: 'ValidationException' },
        { operation },
      );

      const failure = await call().catch((error: unknown) => error);

      expect(failure).toBeInstanceOf(DynamoDbServiceError);
      expect(failure).not.toBeInstanceOf(StoreUnavailableError);
    });
  });

  it('deletes the plant when a conditional delete’s answer is lost, and the retry finds none: not found', async () => {
    const id = freshId();
    await subject.store.create({ id, name: 'Lost answer' });
    await subject.proxy.inject({ kind: 'forwardThenDrop' }, { operation: 'DeleteItem', times: 1 });

    const failure = await subject.store
      .delete(plantId(id), { kind: 'any' })
      .catch((error: unknown) => error);

    // The first attempt deleted it; the retry's condition found nothing (documented on the port).
    expect(failure).toBeInstanceOf(PlantNotFoundError);
    expect(await stored(id)).toBeUndefined();
  });

  it('deletes the plant when a delete’s answer is lost and the retry finds it gone, and says so', async () => {
    const id = freshId();
    await subject.store.create({ id, name: 'Lost answer' });
    await subject.proxy.inject({ kind: 'forwardThenDrop' }, { operation: 'DeleteItem', times: 1 });

    const result = await subject.store.delete(plantId(id));

    // The first attempt deleted it; the retry found nothing (documented on the port).
    expect(result).toStrictEqual({ deleted: false });
    expect(await stored(id)).toBeUndefined();
  });
});
