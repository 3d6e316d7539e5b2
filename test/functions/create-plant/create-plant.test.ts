import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { plantResponse } from '../../../functions/create-plant/create-plant.ts';
import { hygieneHeaders } from '../../support/contract.ts';
import { fakeEvent } from '../../support/fake-event.ts';
import { bodyOf, type PlantApiHarness, startPlantApi } from '../../support/plant-api-harness.ts';

let api: PlantApiHarness;
let token: string;
const freshId = () => api.freshId();

beforeAll(async () => {
  api = await startPlantApi();
  token = await api.issuer.mint();
});
afterAll(() => api.close());

const create = (body: string, overrides: Parameters<typeof fakeEvent>[0] = {}) =>
  api.invoke(fakeEvent({ token, body, ...overrides }));
const stored = (id: string) => api.dynalite.getItem(api.tableName, id);

const composed = 'Caf\u00E9';
const decomposed = 'Cafe\u0301';

/** What the chain makeHandler wires adds to its steps, each tested in its own module's file. */
describe('makeHandler', () => {
  it('stores and answers only NewPlant, ignoring unknown fields', async () => {
    const id = freshId();

    const result = await create(`{"id":${id},"name":"Ivy","colour":"green","nested":{"id":5}}`);

    expect(bodyOf(result)).toStrictEqual({ name: 'Ivy' });
    expect(await stored(id)).toStrictEqual({ id: { N: id }, name: { S: 'Ivy' } });
  });

  it('keeps int64 ids exact end to end: the largest, the one below it and the smallest are three plants', async () => {
    const ids = ['9223372036854775807', '9223372036854775806', '-9223372036854775808'];

    const results = await Promise.all(
      ids.map((id, n) => create(`{"id":${id},"name":"Edge ${n}"}`)),
    );

    expect(results.map((result) => result.statusCode)).toStrictEqual([200, 200, 200]);
    expect(await Promise.all(ids.map(stored))).toStrictEqual(
      ids.map((id, n) => ({ id: { N: id }, name: { S: `Edge ${n}` } })),
    );
  });

  it.each([
    ['decomposed (NFD), then composed (NFC)', decomposed, composed],
    ['composed (NFC), then decomposed (NFD)', composed, decomposed],
  ])('stores one plant in NFC and answers a replay %s with 200', async (_case, first, second) => {
    const id = freshId();

    const created = await create(
      JSON.stringify({ id: Number(id), name: first, tag: `${first} au lait` }),
    );
    const replayed = await create(
      JSON.stringify({ id: Number(id), name: second, tag: `${second} au lait` }),
    );

    expect(created.statusCode).toBe(200);
    expect(replayed.statusCode).toBe(200);
    expect(bodyOf(created)).toStrictEqual({ name: composed, tag: `${composed} au lait` });
    expect(bodyOf(replayed)).toStrictEqual({ name: composed, tag: `${composed} au lait` });
    expect(await stored(id)).toStrictEqual({
      id: { N: id },
      name: { S: composed },
      tag: { S: `${composed} au lait` },
    });
  });

  it('still answers 409 to a name that differs after normalization', async () => {
    const id = freshId();
    await create(JSON.stringify({ id: Number(id), name: decomposed }));

    const result = await create(JSON.stringify({ id: Number(id), name: 'Cafe' }));

    expect(result.statusCode).toBe(409);
    expect(await stored(id)).toStrictEqual({ id: { N: id }, name: { S: composed } });
  });

  it('hands the body parser JSON nested 64 levels, which it reads', async () => {
    const id = freshId();
    const deep = `${'['.repeat(63)}"]["${']'.repeat(63)}`;

    const result = await create(`{"id":${id},"name":"Deep","x":${deep}}`);

    expect(result.statusCode).toBe(200);
  });

  it('lets a media type with parameters through the body parser too', async () => {
    const result = await create(`{"id":${freshId()},"name":"Typed"}`, {
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });

    expect(result.statusCode).toBe(200);
  });

  it('writes exactly one request line per request, with the outcome and the measured store latency', async () => {
    api.logs.length = 0;

    await create(`{"id":${freshId()},"name":"Timed"}`);

    expect(api.logs).toHaveLength(1);
    expect(api.logs[0]).toMatchObject({
      message: 'request',
      fields: { status: 200, outcome: 'created', PlantsCreated: 1 },
    });
    expect(api.logs[0]?.fields.StoreLatency).toBeTypeOf('number');
  });

  it('names a replay and a conflict in the request line, each with its own counter', async () => {
    const id = freshId();
    await create(`{"id":${id},"name":"Sage"}`);
    api.logs.length = 0;

    await create(`{"id":${id},"name":"Sage"}`);
    await create(`{"id":${id},"name":"Thyme"}`);

    expect(api.logs.map(({ fields }) => fields)).toMatchObject([
      { status: 200, outcome: 'replayed', CreatesReplayed: 1 },
      { status: 409, outcome: 'conflict', CreateConflicts: 1 },
    ]);
  });
});

describe('plantResponse', () => {
  it.each([
    ['with a tag', { id: '1', name: 'Fern', tag: 'indoor' }, { name: 'Fern', tag: 'indoor' }],
    ['without a tag', { id: '1', name: 'Cactus' }, { name: 'Cactus' }],
  ])('answers a plant %s with 200, its name and tag, never its id', (_case, plant, body) => {
    const response = plantResponse(plant);

    expect(response.statusCode).toBe(200);
    expect(response.headers).toStrictEqual(hygieneHeaders);
    expect(JSON.parse(response.body ?? '')).toStrictEqual(body);
  });
});
