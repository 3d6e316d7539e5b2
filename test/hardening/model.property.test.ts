import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectContractAnswer } from '../support/contract.ts';
import { fakeEvent } from '../support/fake-event.ts';
import { type PlantApiHarness, startPlantApi } from '../support/plant-api-harness.ts';

/** These properties hit dynalite on every step: a few hundred runs of up to a dozen creates. */
const runs = Number(process.env.FC_MODEL_RUNS ?? 300);

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
