import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlantStoreClient, exactJson } from '../../clients/plant-store-client.ts';
import type { LocalApi } from '../../dev-server/local-api.ts';
import { clientCredentialsToken, startTestApi } from '../support/local-api-fixture.ts';

describe('exactJson', () => {
  it.each([
    [{ id: 9223372036854775807n, name: 'Fern' }, '{"id":9223372036854775807,"name":"Fern"}'],
    [{ id: -9223372036854775808n, name: 'Fern' }, '{"id":-9223372036854775808,"name":"Fern"}'],
    [{ id: 1, name: 'Fern', tag: 'indoor' }, '{"id":1,"name":"Fern","tag":"indoor"}'],
  ])('writes %o as %s, bigints digit for digit', (body, text) => {
    const json = exactJson(body);

    expect(json).toBe(text);
  });
});

describe('createPlantStoreClient', () => {
  let api: LocalApi;
  let token: string;

  beforeAll(async () => {
    api = await startTestApi();
    token = await clientCredentialsToken(api);
  });

  afterAll(async () => {
    await api?.close();
  });

  it('creates a plant and returns the typed Plant', async () => {
    const client = createPlantStoreClient({ baseUrl: `${api.url}/`, token });

    const { data, error, response } = await client.POST('/plants', {
      body: { id: 1, name: 'Fern', tag: 'indoor' },
    });

    expect(response.status).toBe(200);
    expect(error).toBeUndefined();
    expect(data).toEqual({ name: 'Fern', tag: 'indoor' });
  });

  it('keeps int64 ids exact: 2^63-1 and 2^63-2 are two plants', async () => {
    const client = createPlantStoreClient({ baseUrl: api.url, token: async () => token });

    const first = await client.POST('/plants', { body: { id: 9223372036854775807n, name: 'Max' } });
    const second = await client.POST('/plants', {
      body: { id: 9223372036854775806n, name: 'Max-1' },
    });

    expect(first.data).toEqual({ name: 'Max' });
    expect(second.data).toEqual({ name: 'Max-1' });
  });

  it('returns the Error body as `error`, e.g. 401 without a token', async () => {
    const client = createPlantStoreClient({ baseUrl: api.url });

    const { data, error, response } = await client.POST('/plants', {
      body: { id: 2, name: 'Aloe' },
    });

    expect(response.status).toBe(401);
    expect(data).toBeUndefined();
    expect(error).toEqual({ error: 401, message: expect.any(String) });
  });
});
