import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FunctionInitError } from '../../dev-server/function-host.ts';
import { type LocalApi, startLocalApi } from '../../dev-server/local-api.ts';

const fixture = (name: string) =>
  new URL(`../support/dev-server-handlers/${name}`, import.meta.url).href;

function start(handlerUrl: string): Promise<LocalApi> {
  return startLocalApi({ host: '127.0.0.1', port: 0, log: () => {}, handlerUrl });
}

describe('startLocalApi in front of a function', () => {
  let api: LocalApi;

  beforeAll(async () => {
    api = await start(fixture('misbehaving-handler.ts'));
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

  it('answers a function that throws with the gateway 500 {"message":"Internal Server Error"}', async () => {
    const response = await post('throw');

    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({ message: 'Internal Server Error' });
  });

  it('answers the request whose function crashed with 500, and keeps answering', async () => {
    const crashed = await post('crash');
    const next = await post('echo');

    expect(crashed.status).toBe(500);
    expect(await crashed.json()).toEqual({ message: 'Internal Server Error' });
    expect(next.status).toBe(500);
  });
});

describe('startLocalApi with a function that cannot start', () => {
  it('fails at start-up with the cold-start error', async () => {
    const started = start(fixture('failing-init-handler.ts'));

    await expect(started).rejects.toThrow(FunctionInitError);
    await expect(started).rejects.toThrow(/PLANTS_TABLE_NAME is not set/);
  });
});
