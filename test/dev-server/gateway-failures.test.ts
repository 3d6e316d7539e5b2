import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { LocalApi } from '../../dev-server/local-api.ts';
import { operations } from '../../functions/operations.ts';
import { everyHandler, startTestApi } from '../support/local-api-fixture.ts';

function start(fixture: string): Promise<LocalApi> {
  return startTestApi({
    handlers: everyHandler(fixture),
  });
}

describe('startLocalApi in front of a function', () => {
  let api: LocalApi;

  beforeAll(async () => {
    api = await start('misbehaving-handler.ts');
  });

  afterAll(async () => {
    await api?.close();
  });

  const post = (behave: string, headers: Record<string, string> = {}) =>
    fetch(`${api.url}/plants?b=2&a=1`, {
      method: 'POST',
      headers: { 'x-behave': behave, 'content-type': 'application/json', ...headers },
      body: '{"id":1}',
    });

  it('hands the function a payload 2.0 event and answers with its result', async () => {
    const response = await post('echo', { 'X-Multi': 'one' });

    expect(response.status).toBe(201);
    expect(response.headers.get('x-echo')).toBe('yes');
    const event = (await response.json()) as { requestContext: { requestId: string } };
    expect(event).toMatchObject({
      version: '2.0',
      routeKey: 'POST /plants',
      rawPath: '/plants',
      rawQueryString: 'b=2&a=1',
      headers: { 'x-multi': 'one', 'content-type': 'application/json' },
      body: '{"id":1}',
      isBase64Encoded: false,
      requestContext: { http: { method: 'POST', path: '/plants', sourceIp: '127.0.0.1' } },
    });
    expect(event.requestContext.requestId).toBe(response.headers.get('apigw-requestid'));
  });

  it('hands each operation its route key, the decoded query string and the path parameters', async () => {
    const echo = { 'x-behave': 'echo' };

    const list = await fetch(`${api.url}/plants?limit=1&cursor=a%2Bb&limit=2`, { headers: echo });
    const remove = await fetch(`${api.url}/plants/%31`, { method: 'DELETE', headers: echo });

    expect(list.status).toBe(201);
    const listEvent = await list.json();
    expect(listEvent).toMatchObject({
      routeKey: 'GET /plants',
      rawQueryString: 'limit=1&cursor=a%2Bb&limit=2',
      queryStringParameters: { limit: '1,2', cursor: 'a+b' },
      requestContext: { routeKey: 'GET /plants', http: { method: 'GET', path: '/plants' } },
    });
    expect(listEvent).not.toHaveProperty('pathParameters');
    expect(listEvent).not.toHaveProperty('body');
    expect(remove.status).toBe(201);
    const removeEvent = await remove.json();
    expect(removeEvent).toMatchObject({
      routeKey: 'DELETE /plants/{id}',
      rawPath: '/plants/%31',
      pathParameters: { id: '1' },
    });
    expect(removeEvent).not.toHaveProperty('queryStringParameters');
  });

  it('runs each operation as a function of its own, with its name and its scope', async () => {
    const whoami = { 'x-behave': 'whoami' };

    const answers = await Promise.all(
      operations.map(async ({ method, path }) => {
        const url = `${api.url}${path.replace('{id}', '1')}`;
        const response = await fetch(url, { method, headers: whoami });
        return response.json();
      }),
    );

    expect(answers).toStrictEqual(
      operations.map(({ name, scope }) => ({
        functionName: name,
        environment: { AWS_LAMBDA_FUNCTION_NAME: name, AUTH_SCOPE: scope },
      })),
    );
  });

  it.each(['204', '304'])(
    "answers the function's %s with its headers and neither a body nor a Content-Length (RFC 9110 8.6)",
    async (status) => {
      const response = await fetch(`${api.url}/plants`, { headers: { 'x-behave': status } });

      expect(response.status).toBe(Number(status));
      expect(response.headers.get('etag')).toBe('"stand-in"');
      expect(response.headers.get('content-length')).toBeNull();
      expect(await response.text()).toBe('');
    },
  );

  it('answers a function that throws with the gateway 500 {"message":"Internal Server Error"}', async () => {
    const response = await post('throw');

    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({ message: 'Internal Server Error' });
  });

  it('answers the request whose function crashed with 500, and keeps answering; the other operations are unharmed', async () => {
    const crashed = await post('crash');
    const next = await post('echo');

    const otherFunction = await fetch(`${api.url}/plants`, { headers: { 'x-behave': 'echo' } });

    expect(crashed.status).toBe(500);
    expect(await crashed.json()).toEqual({ message: 'Internal Server Error' });
    expect(next.status).toBe(500);
    expect(otherFunction.status).toBe(201);
  });
});

describe('startLocalApi with a function that cannot start', () => {
  it('answers 500 and logs the cold-start error, and starts it afresh for the next request', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    const api = await start('failing-init-handler.ts');
    try {
      const answers = [];
      for (let i = 0; i < 2; i++) answers.push((await fetch(`${api.url}/plants`)).status);

      expect(answers).toEqual([500, 500]);
      const logged = errors.mock.calls.map((args) => args.join(' '));
      expect(logged.filter((line) => /PLANTS_TABLE_NAME is not set/.test(line))).toHaveLength(2);
    } finally {
      errors.mockRestore();
      await api.close();
    }
  });
});
