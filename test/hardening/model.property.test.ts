import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDynamoDbClient } from '../../functions/connections/dynamodb-client.ts';
import { createDynamoDbPlantStore } from '../../functions/plants/dynamodb-plant-store.ts';
import { PlantConflictError, StoreUnavailableError } from '../../functions/plants/plant-errors.ts';
import { parsePlantId } from '../../functions/plants/plant-id.ts';
import type { PlantPage, StoredPlant } from '../../functions/plants/plant-store.ts';
import { expectContractAnswer, hygieneHeaders, noContentHeaders } from '../support/contract.ts';
import { startDynalite } from '../support/dynalite-server.ts';
import { fakeDeleteEvent, fakeEvent, fakeListEvent } from '../support/fake-event.ts';
import { listedPlants, nextQuery } from '../support/list-pages.ts';
import { type PlantApiHarness, startPlantApi } from '../support/plant-api-harness.ts';

/** These properties hit dynalite on every step: a few hundred runs of up to a dozen creates. */
const runs = Number(process.env.FC_MODEL_RUNS ?? 40);

type Plant = { name: string; tag?: string };
type Create = { slot: number; plant: Plant };

let api: PlantApiHarness;
let token: string;
let nextBase = 9_900_000_000;
/** Three ids no other run has used: each run starts from an empty table as far as it can see. */
const freshPool = () => {
  nextBase += 10;
  return [0, 1, 2].map((n) => String(nextBase + n));
};

beforeAll(async () => {
  api = await startPlantApi();
  token = await api.issuer.mint({ expiresIn: 3600 });
});
afterAll(() => api.close());

const create: fc.Arbitrary<Create> = fc
  .record({
    slot: fc.nat({ max: 2 }),
    plant: fc.oneof(
      fc.record({ name: fc.constantFrom('Fern', 'Ivy') }),
      fc.record({
        name: fc.constantFrom('Fern', 'Ivy'),
        tag: fc.constantFrom('indoor', 'outdoor'),
      }),
    ),
    // fc.record makes null-prototype objects; the answers are plain JSON objects.
  })
  .map(({ slot, plant }) => ({ slot, plant: { ...plant } }));

const send = (id: string, plant: Plant) =>
  api.invoke(fakeEvent({ token, body: JSON.stringify({ id: Number(id), ...plant }) }));

const asItem = (id: string, plant: Plant) =>
  plant.tag === undefined
    ? { id: { N: id }, name: { S: plant.name } }
    : { id: { N: id }, name: { S: plant.name }, tag: { S: plant.tag } };

const samePlant = (a: Plant, b: Plant) => a.name === b.name && a.tag === b.tag;

/** The rules in plain code: first create of an id wins, an identical one replays, others conflict. */
class PlantModel {
  readonly plants = new Map<string, Plant>();

  create(id: string, plant: Plant): { status: 200 | 409; body: unknown } {
    const stored = this.plants.get(id);
    if (stored === undefined) {
      this.plants.set(id, plant);
      return { status: 200, body: plant };
    }
    return samePlant(stored, plant)
      ? { status: 200, body: stored }
      : {
          status: 409,
          body: { error: 409, message: `A different plant with id ${id} already exists` },
        };
  }
}

describe('POST /plants against a model of the rules', () => {
  it('answers every sequence of creates as the model does, and ends with the same table', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(create, { minLength: 1, maxLength: 12 }), async (creates) => {
        const ids = freshPool();
        const model = new PlantModel();
        for (const { slot, plant } of creates) {
          const id = ids[slot] ?? '';

          const result = await send(id, plant);

          const expected = model.create(id, plant);
          expectContractAnswer(result);
          expect(result.statusCode).toBe(expected.status);
          expect(JSON.parse(result.body ?? '')).toStrictEqual(expected.body);
        }
        for (const id of ids) {
          const plant = model.plants.get(id);
          expect(await api.dynalite.getItem(api.tableName, id)).toStrictEqual(
            plant === undefined ? undefined : asItem(id, plant),
          );
        }
      }),
      { numRuns: runs },
    );
  });

  it('lets concurrent creates of one id behave like some order of them: one wins, nothing changes after', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(create, { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 3 }),
        async (batches) => {
          const ids = freshPool();
          const winners = new Map<string, Plant>();
          for (const batch of batches) {
            const results = await Promise.all(
              batch.map(({ slot, plant }) => send(ids[slot] ?? '', plant)),
            );

            for (const id of ids) {
              const item = await api.dynalite.getItem(api.tableName, id);
              const before = winners.get(id);
              const sentHere = batch.filter(({ slot }) => ids[slot] === id);
              if (before !== undefined) {
                expect(item).toStrictEqual(asItem(id, before));
              } else if (item === undefined) {
                expect(sentHere).toHaveLength(0);
              } else {
                const winner = sentHere.find(({ plant }) => samePlant(plant, plantOf(item)));
                expect(winner).toBeDefined();
                if (winner) winners.set(id, winner.plant);
              }
            }
            batch.forEach(({ slot, plant }, n) => {
              const id = ids[slot] ?? '';
              const winner = winners.get(id);
              const status = results[n]?.statusCode;
              expect(status).toBe(winner && samePlant(winner, plant) ? 200 : 409);
            });
          }
        },
      ),
      { numRuns: Math.ceil(runs / 3) },
    );
  });
});

function plantOf(item: Record<string, unknown>): Plant {
  const { name, tag } = item as { name?: { S?: string }; tag?: { S?: string } };
  const plant: Plant = { name: name?.S ?? '' };
  if (tag?.S !== undefined) plant.tag = tag.S;
  return plant;
}

/** An id's slot in a run's pool; the store's ops as the property draws them. */
type StoreOp =
  | { kind: 'create'; slot: number; plant: Plant }
  | { kind: 'delete'; slot: number }
  /** One more page of the walk under way (a new walk when none is). */
  | { kind: 'page'; limit: number }
  /** A whole walk with nothing written meanwhile: exactly the model's plants. */
  | { kind: 'walk'; limit: number };

const slots = 4;
const storeOp: fc.Arbitrary<StoreOp> = fc.oneof(
  {
    weight: 4,
    arbitrary: create
      .map(({ plant }) => plant)
      .chain((plant) =>
        fc.nat({ max: slots - 1 }).map((slot) => ({ kind: 'create' as const, slot, plant })),
      ),
  },
  {
    weight: 2,
    arbitrary: fc.nat({ max: slots - 1 }).map((slot) => ({ kind: 'delete' as const, slot })),
  },
  {
    weight: 3,
    arbitrary: fc.integer({ min: 1, max: 3 }).map((limit) => ({ kind: 'page' as const, limit })),
  },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 1, max: 3 }).map((limit) => ({ kind: 'walk' as const, limit })),
  },
);

/** What a walk under way has seen, and what the model held while it went. */
type Walk = {
  limit: number;
  cursor: string | undefined;
  listed: StoredPlant[];
  /** The ids held when the walk began and never deleted since. */
  throughout: Set<string>;
  /** Every plant any id held at some moment of the walk, as `id name tag`. */
  held: Set<string>;
};

const heldKey = (id: string, plant: Plant) => JSON.stringify([id, plant.name, plant.tag]);
const asStored = (id: string, plant: Plant): StoredPlant => ({ id: parsePlantId(id), ...plant });
const byId = (a: { id: string }, b: { id: string }) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1);

/** The rules of delete added to the model's: a delete removes the plant if there is one. */
class StoreModel extends PlantModel {
  delete(id: string): { deleted: boolean } {
    return { deleted: this.plants.delete(id) };
  }

  stored(): StoredPlant[] {
    return [...this.plants].map(([id, plant]) => asStored(id, plant)).sort(byId);
  }
}

type CreateAnswer = { status: 200 | 409; body: unknown } | 'unavailable';

/**
 * One way to reach the rules: the store port itself, or the three handlers over HTTP-shaped
 * events. Each answers in the model's terms, over a table of its own that each run leaves empty.
 */
type Driver = {
  /** 200 or 409 as the handler answers; 'unavailable' where a retry is asked for. */
  create(id: string, plant: Plant): Promise<CreateAnswer>;
  delete(id: string): Promise<{ deleted: boolean }>;
  list(request: { limit: number; cursor: string | undefined }): Promise<PlantPage>;
  /** The stored item of one id, read apart from the code under test. */
  stored(id: string): Promise<Record<string, unknown> | undefined>;
  close(): Promise<void>;
};

/** The store's adapter on a dynalite table of its own. */
async function storeDriver(): Promise<Driver> {
  const dynalite = await startDynalite();
  const store = createDynamoDbPlantStore(
    createDynamoDbClient({
      endpoint: new URL(dynalite.endpoint),
      region: 'us-east-1',
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    }),
    dynalite.tableName,
  );
  return {
    async create(id, plant) {
      try {
        const { plant: answered } = await store.create({ id, ...plant });
        return { status: 200, body: answered };
      } catch (error) {
        if (error instanceof PlantConflictError) {
          return { status: 409, body: { error: 409, message: error.message } };
        }
        // A create whose condition failed and whose read-back found the plant deleted
        // meanwhile wrote nothing, and asks for a retry.
        if (error instanceof StoreUnavailableError) return 'unavailable';
        throw error;
      }
    },
    delete: (id) => store.delete(parsePlantId(id)),
    list: (request) => store.list(request),
    stored: (id) => dynalite.getItem(dynalite.tableName, id),
    close: () => dynalite.close(),
  };
}

/**
 * POST /plants, GET /plants and DELETE /plants/{id} through their handlers, on a harness of their
 * own: each answer checked against the contract, a page's next cursor read from its Link, and
 * whether a delete found its plant read from its request line, which names it.
 */
async function handlerDriver(): Promise<Driver> {
  const harness = await startPlantApi();
  const token = await harness.issuer.mint({
    claims: { scope: 'plants/read plants/write' },
    expiresIn: 3600,
  });
  let requests = 0;
  return {
    async create(id, plant) {
      const result = await harness.invoke(
        fakeEvent({ token, body: JSON.stringify({ id: Number(id), ...plant }) }),
      );
      if (result.statusCode === 503) return 'unavailable';
      expectContractAnswer(result);
      return { status: result.statusCode as 200 | 409, body: JSON.parse(result.body ?? '') };
    },
    async delete(id) {
      const event = fakeDeleteEvent(id, { token });
      requests += 1;
      event.requestContext.requestId = `model-delete-${requests}`;
      const result = await harness.handlers['delete-plant'](event);
      expect(result).toStrictEqual({ statusCode: 204, headers: noContentHeaders });
      const line = harness.logs.find(
        ({ fields }) => fields.apiRequestId === event.requestContext.requestId,
      );
      expect(['deleted', 'absent']).toContain(line?.fields.outcome);
      return { deleted: line?.fields.outcome === 'deleted' };
    },
    async list({ limit, cursor }) {
      const query = cursor === undefined ? `limit=${limit}` : `limit=${limit}&cursor=${cursor}`;
      const result = await harness.handlers['list-plants'](fakeListEvent(query, { token }));
      expect(result.statusCode).toBe(200);
      expect(result.headers).toMatchObject(hygieneHeaders);
      const plants = listedPlants(result).map(({ id, ...plant }) => asStored(id, plant));
      const next = nextQuery(result);
      if (next === undefined) return { plants };
      expect(next.startsWith(`limit=${limit}&cursor=`)).toBe(true);
      return { plants, next: next.slice(`limit=${limit}&cursor=`.length) };
    },
    stored: (id) => harness.dynalite.getItem(harness.tableName, id),
    close: () => harness.close(),
  };
}

async function wholeWalk(driver: Driver, limit: number): Promise<StoredPlant[]> {
  const plants: StoredPlant[] = [];
  let cursor: string | undefined;
  do {
    const page = await driver.list({ limit, cursor });
    expect(page.plants.length).toBeLessThanOrEqual(limit);
    plants.push(...page.plants);
    cursor = page.next;
    expect(plants.length, 'a walk ends').toBeLessThanOrEqual(100);
  } while (cursor !== undefined);
  return plants;
}

describe.each([
  ['the plant store', storeDriver],
  ['the handlers of POST, GET and DELETE', handlerDriver],
])('%s against a model of the rules, with deletes and list walks', (_name, start) => {
  let store: Driver;
  let nextStoreBase = 7_700_000_000;
  beforeAll(async () => {
    // A table of its own, emptied after every run, so that a walk sees only the run's plants.
    store = await start();
  });
  afterAll(() => store.close());

  it('answers creates, replays and deletes as the model does, and every walk lists each plant present throughout it once', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(storeOp, { minLength: 1, maxLength: 16 }), async (ops) => {
        nextStoreBase += 10;
        const ids = Array.from({ length: slots }, (_, n) => String(nextStoreBase + n));
        const model = new StoreModel();
        let walk: Walk | undefined;
        expect(await wholeWalk(store, 3)).toStrictEqual([]);

        for (const op of ops) {
          if (op.kind === 'create') {
            const id = ids[op.slot] ?? '';
            const answer = await store.create(id, op.plant);
            expect(answer).toStrictEqual(model.create(id, op.plant));
            walk?.held.add(heldKey(id, model.plants.get(id) ?? op.plant));
          } else if (op.kind === 'delete') {
            const id = ids[op.slot] ?? '';
            expect(await store.delete(id)).toStrictEqual(model.delete(id));
            walk?.throughout.delete(id);
          } else if (op.kind === 'walk') {
            expect((await wholeWalk(store, op.limit)).sort(byId)).toStrictEqual(model.stored());
          } else {
            walk ??= {
              limit: op.limit,
              cursor: undefined,
              listed: [],
              throughout: new Set(model.plants.keys()),
              held: new Set([...model.plants].map(([id, plant]) => heldKey(id, plant))),
            };
            const page = await store.list({ limit: walk.limit, cursor: walk.cursor });
            expect(page.plants.length).toBeLessThanOrEqual(walk.limit);
            walk.listed.push(...page.plants);
            walk.cursor = page.next;
            if (walk.cursor === undefined) {
              expectWalkAgreed(walk);
              walk = undefined;
            }
          }
        }

        while (walk !== undefined) {
          const page = await store.list({ limit: walk.limit, cursor: walk.cursor });
          walk.listed.push(...page.plants);
          walk.cursor = page.next;
          if (walk.cursor === undefined) {
            expectWalkAgreed(walk);
            walk = undefined;
          }
        }
        expect((await wholeWalk(store, 2)).sort(byId)).toStrictEqual(model.stored());
        for (const id of model.plants.keys()) {
          expect(await store.delete(id)).toStrictEqual({ deleted: true });
        }
        for (const id of ids) expect(await store.stored(id)).toBeUndefined();
      }),
      { numRuns: Math.ceil(runs / 3) },
    );
  });

  it('lets concurrent creates and deletes behave like some order of them, whole plants only', async () => {
    type Write = { kind: 'create'; slot: number; plant: Plant } | { kind: 'delete'; slot: number };
    const write: fc.Arbitrary<Write> = fc.oneof(
      create.map(({ slot, plant }) => ({ kind: 'create' as const, slot: slot % 2, plant })),
      fc.nat({ max: 1 }).map((slot) => ({ kind: 'delete' as const, slot })),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(write, { minLength: 2, maxLength: 5 }), { minLength: 1, maxLength: 3 }),
        async (batches) => {
          nextStoreBase += 10;
          const ids = [String(nextStoreBase), String(nextStoreBase + 1)];
          let model = new StoreModel();
          for (const batch of batches) {
            const answers = await Promise.all(
              batch.map((op) => {
                const id = ids[op.slot] ?? '';
                return op.kind === 'delete' ? store.delete(id) : store.create(id, op.plant);
              }),
            );
            const table = await Promise.all(ids.map((id) => store.stored(id)));

            const order = [...orders(batch.length)].find((indexes) => {
              const trial = new StoreModel();
              for (const [id, plant] of model.plants) trial.plants.set(id, plant);
              const agrees = indexes.every((n) => {
                const op = batch[n];
                const id = ids[op?.slot ?? 0] ?? '';
                if (op === undefined || answers[n] === 'unavailable') return true;
                const expected =
                  op.kind === 'delete' ? trial.delete(id) : trial.create(id, op.plant);
                return JSON.stringify(expected) === JSON.stringify(answers[n]);
              });
              return (
                agrees &&
                ids.every((id, n) => {
                  const plant = trial.plants.get(id);
                  return (
                    JSON.stringify(table[n]) ===
                    JSON.stringify(plant === undefined ? undefined : asItem(id, plant))
                  );
                })
              );
            });

            expect(
              order,
              `no order of ${JSON.stringify(batch)} gives ${JSON.stringify(answers)}`,
            ).toBeDefined();
            const next = new StoreModel();
            ids.forEach((id, n) => {
              const item = table[n];
              if (item !== undefined) next.plants.set(id, plantOf(item));
            });
            model = next;
            expect((await wholeWalk(store, 1)).sort(byId)).toStrictEqual(model.stored());
          }
          for (const id of model.plants.keys()) await store.delete(id);
        },
      ),
      { numRuns: Math.ceil(runs / 6) },
    );
  });
});

function expectWalkAgreed(walk: Walk) {
  const ids = walk.listed.map(({ id }) => id);
  expect(new Set(ids).size, 'no plant twice').toBe(ids.length);
  for (const id of walk.throughout) expect(ids).toContain(id);
  for (const { id, name, tag } of walk.listed) {
    expect(walk.held, 'only plants held during the walk').toContain(
      heldKey(id, { name, ...(tag === undefined ? {} : { tag }) }),
    );
  }
}

/** Every order of 0..n-1. */
function* orders(n: number): Generator<number[]> {
  if (n === 0) {
    yield [];
    return;
  }
  for (const rest of orders(n - 1)) {
    for (let at = 0; at <= rest.length; at++)
      yield [...rest.slice(0, at), n - 1, ...rest.slice(at)];
  }
}
