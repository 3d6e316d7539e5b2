import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { keepAliveAgent, preconnect, sendRequest } from '../../functions/outbound-http.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let server: Server;
let url: URL;
let connections: Socket[];

beforeEach(async () => {
  connections = [];
  server = createServer((request, response) => response.end(`${request.method} ${request.url}`));
  server.on('connection', (socket) => connections.push(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/plants`);
});
afterEach(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const get = (agent: ReturnType<typeof keepAliveAgent>) =>
  sendRequest(url, { method: 'GET', headers: {}, timeoutMs: 2000, maxResponseBytes: 1024, agent });

describe('preconnect', () => {
  it('opens one connection before any request and hands it to the first request', async () => {
    const agent = keepAliveAgent(url, 50);

    preconnect(agent, url);
    await sleep(100);
    const before = connections.length;
    const response = await get(agent);

    expect(before).toBe(1);
    expect(response).toStrictEqual({ statusCode: 200, body: 'GET /plants' });
    expect(connections).toHaveLength(1);
    agent.destroy();
  });

  it('opens no connection of its own when a request comes first', async () => {
    const agent = keepAliveAgent(url, 50);

    preconnect(agent, url);
    await get(agent);
    await sleep(100);

    expect(connections).toHaveLength(1);
    agent.destroy();
  });

  it('leaves the first request to connect when the opened connection has closed', async () => {
    const agent = keepAliveAgent(url, 50);
    preconnect(agent, url);
    await sleep(100);
    connections[0]?.destroy();
    await sleep(100);

    const response = await get(agent);

    expect(response.statusCode).toBe(200);
    expect(connections).toHaveLength(2);
    agent.destroy();
  });
});
