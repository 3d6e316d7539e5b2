import { describe, expect, it } from 'vitest';
import { expectErrorShape } from '../support/contract.ts';
import { createPlant, useTestApi } from '../support/local-api-fixture.ts';

/** GET and PUT /plants/{id} as a client meets them: over HTTP, through the local gateway. */
describe('GET and PUT /plants/{id} over HTTP (the local API of npm start)', () => {
  const local = useTestApi();

  const auth = () => ({ authorization: `Bearer ${local.token}` });
  const read = (id: string, headers: Record<string, string> = {}) =>
    fetch(`${local.api.url}/plants/${id}`, { headers: { ...auth(), ...headers } });
  const replace = (id: string, body: string, headers: Record<string, string> = {}) =>
    fetch(`${local.api.url}/plants/${id}`, {
      method: 'PUT',
      headers: { ...auth(), 'content-type': 'application/json', ...headers },
      body,
    });
  const create = async (id: string, name: string) => {
    const response = await createPlant(local.api, local.token, `{"id":${id},"name":"${name}"}`);
    expect(response.status).toBe(200);
  };

  it('reads a plant with its exact id, a strong ETag and private, no-cache; If-None-Match gets 304', async () => {
    const id = '9223372036854775806';
    await create(id, 'Fern');

    const first = await read(id);
    const etag = first.headers.get('etag') ?? '';
    const again = await read(id, { 'if-none-match': etag });

    expect(first.status).toBe(200);
    expect(await first.text()).toBe(`{"id":${id},"name":"Fern"}`);
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
    expect(first.headers.get('cache-control')).toBe('private, no-cache');
    expect(again.status).toBe(304);
    expect(again.headers.get('etag')).toBe(etag);
    expect(await again.text()).toBe('');
  });

  it('lets exactly one of twenty concurrent replaces with the same If-Match win, and stores its plant', async () => {
    const id = '7000000000000000001';
    await create(id, 'Fern');
    const etag = (await read(id)).headers.get('etag') ?? '';

    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, n) =>
        replace(id, `{"name":"Writer ${n}"}`, { 'if-match': etag }),
      ),
    );

    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    expect(statuses.filter((status) => status === 412)).toHaveLength(19);
    const winner = answers.find((answer) => answer.status === 200);
    const won = (await winner?.json()) as { name: string };
    const stored = await read(id);
    expect(await stored.json()).toStrictEqual({ id: Number(id), name: won.name });
    expect(stored.headers.get('etag')).toBe(winner?.headers.get('etag'));
    for (const loser of answers.filter((answer) => answer.status === 412)) {
      expectErrorShape(await loser.json(), 412);
    }
  });

  it('answers 404 to a read and a replace of an id no plant has, and creates nothing', async () => {
    const id = '7000000000000000002';

    const [got, put] = await Promise.all([read(id), replace(id, '{"name":"Ghost"}')]);

    expect([got.status, put.status]).toStrictEqual([404, 404]);
    expect((await read(id)).status).toBe(404);
  });

  it('answers 400 naming If-None-Match to a read that sends both preconditions', async () => {
    const id = '7000000000000000003';
    await create(id, 'Fern');

    const answer = await read(id, { 'if-match': '*', 'if-none-match': '*' });

    expect(answer.status).toBe(400);
    expect(((await answer.json()) as { message: string }).message).toMatch(/^If-Match /);
  });
});
