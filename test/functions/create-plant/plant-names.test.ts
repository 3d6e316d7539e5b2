import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeEvent } from '../../support/fake-event.ts';
import { bodyOf, type PlantApiHarness, startPlantApi } from '../../support/plant-api-harness.ts';

let api: PlantApiHarness;
let token: string;

beforeAll(async () => {
  api = await startPlantApi();
  token = await api.issuer.mint();
});
afterAll(() => api.close());

const create = (id: string, plant: { name: string; tag?: string }) =>
  api.invoke(fakeEvent({ token, body: JSON.stringify({ id: Number(id), ...plant }) }));
const stored = (id: string) => api.dynalite.getItem(api.tableName, id);

const composed = 'Caf\u00E9';
const decomposed = 'Cafe\u0301';

describe('POST /plants with names spelled in different Unicode forms', () => {
  it.each([
    ['decomposed (NFD), then composed (NFC)', decomposed, composed],
    ['composed (NFC), then decomposed (NFD)', composed, decomposed],
  ])('stores one plant in NFC and answers a replay %s with 200', async (_case, first, second) => {
    const id = api.freshId();

    const created = await create(id, { name: first, tag: `${first} au lait` });
    const replayed = await create(id, { name: second, tag: `${second} au lait` });

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
    const id = api.freshId();
    await create(id, { name: decomposed });

    const result = await create(id, { name: 'Cafe' });

    expect(result.statusCode).toBe(409);
    expect(await stored(id)).toStrictEqual({ id: { N: id }, name: { S: composed } });
  });

  it('refuses a bidi override with 400 and stores nothing', async () => {
    const id = api.freshId();

    const result = await create(id, { name: 'Fern\u202Egnp.exe' });

    expect(result.statusCode).toBe(400);
    expect(bodyOf(result)).toMatchObject({ message: expect.stringMatching(/^name must not/) });
    expect(await stored(id)).toBeUndefined();
  });
});
