import { execFile } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import path from 'node:path';
import { getCACertificates, setDefaultCACertificates, type TLSSocket } from 'node:tls';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createThrowawayCa } from '../../../bench/support/throwaway-ca.ts';
import { keepAliveAgent, sendRequest } from '../../../functions/connections/outbound-http.ts';

const execFileAsync = promisify(execFile);
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
  it('keeps no process alive with a connection opened ahead that no request took, its TLS done', async () => {
    const ca = await createThrowawayCa();
    const secured: TLSSocket[] = [];
    const tlsServer = createHttpsServer({ key: ca.serverKey, cert: ca.serverCertChain });
    tlsServer.on('secureConnection', (socket) => secured.push(socket));
    await new Promise<void>((resolve) => tlsServer.listen(0, '127.0.0.1', resolve));
    const endpoint = `https://localhost:${(tlsServer.address() as AddressInfo).port}`;
    const agentModule = pathToFileURL(path.resolve('functions/connections/outbound-http.ts')).href;
    // Ends on its own once its timer has run, unless the connection holds it open.
    const code = `const { keepAliveAgent } = await import(${JSON.stringify(agentModule)});
await keepAliveAgent(new URL(${JSON.stringify(endpoint)}), 1).preconnect();
setTimeout(() => {}, 300);`;

    try {
      const started = performance.now();
      await execFileAsync(process.execPath, ['--input-type=module', '-e', code], {
        env: { PATH: process.env.PATH, NODE_EXTRA_CA_CERTS: ca.caFile },
        timeout: 10_000,
      });

      expect(performance.now() - started).toBeLessThan(5000);
      expect(secured).toHaveLength(1);
    } finally {
      tlsServer.closeAllConnections();
      await new Promise((resolve) => tlsServer.close(resolve));
      await rm(ca.dir, { recursive: true, force: true });
    }
  });

  it('opens one connection before any request and hands it to the first request', async () => {
    const agent = keepAliveAgent(url, 50);

    agent.preconnect();
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

    agent.preconnect();
    await get(agent);
    await sleep(100);

    expect(connections).toHaveLength(1);
    agent.destroy();
  });

  it('resolves once the connection is under way, which the server then sees with no request', async () => {
    const agent = keepAliveAgent(url, 50);

    await agent.preconnect();
    await sleep(100);

    expect(connections).toHaveLength(1);
    expect(await get(agent)).toStrictEqual({ statusCode: 200, body: 'GET /plants' });
    expect(connections).toHaveLength(1);
    agent.destroy();
  });

  it('resolves a host name first, then connects', async () => {
    const byName = new URL(url);
    byName.hostname = 'localhost';
    const agent = keepAliveAgent(byName, 50);

    await agent.preconnect();
    await sleep(100);

    expect(connections).toHaveLength(1);
    agent.destroy();
  });

  it('settles for a name that does not resolve, and leaves the first request to fail on its own', async () => {
    const nowhere = new URL('http://plant-store.invalid/plants');
    const agent = keepAliveAgent(nowhere, 50);

    await agent.preconnect();
    const request = sendRequest(nowhere, {
      method: 'GET',
      headers: {},
      timeoutMs: 5000,
      maxResponseBytes: 1024,
      agent,
    });

    await expect(request).rejects.toThrow(/ENOTFOUND|EAI_AGAIN/);
    agent.destroy();
  });

  it('leaves the first request to connect when the opened connection has closed', async () => {
    const agent = keepAliveAgent(url, 50);
    agent.preconnect();
    await sleep(100);
    connections[0]?.destroy();
    await sleep(100);

    const response = await get(agent);

    expect(response.statusCode).toBe(200);
    expect(connections).toHaveLength(2);
    agent.destroy();
  });
});

describe('preconnect over https', () => {
  it('runs TLS, with the host name as SNI, on the connection opened ahead, and hands it to the first request', async () => {
    const ca = await createThrowawayCa();
    const trusted = getCACertificates('default');
    setDefaultCACertificates([...trusted, ca.caPem]);
    const secured: TLSSocket[] = [];
    const tlsServer = createHttpsServer({ key: ca.serverKey, cert: ca.serverCertChain }, (_, res) =>
      res.end('ok'),
    );
    tlsServer.on('secureConnection', (socket) => secured.push(socket));
    await new Promise<void>((resolve) => tlsServer.listen(0, '127.0.0.1', resolve));
    const byName = new URL(`https://localhost:${(tlsServer.address() as AddressInfo).port}/plants`);
    const agent = keepAliveAgent(byName, 50);

    try {
      await agent.preconnect();
      await sleep(200);
      const before = secured.length;
      const response = await sendRequest(byName, {
        method: 'GET',
        headers: {},
        timeoutMs: 2000,
        maxResponseBytes: 1024,
        agent,
      });

      expect(before).toBe(1);
      expect(secured[0]?.servername).toBe('localhost');
      expect(response).toStrictEqual({ statusCode: 200, body: 'ok' });
      expect(secured).toHaveLength(1);
    } finally {
      agent.destroy();
      tlsServer.closeAllConnections();
      await new Promise((resolve) => tlsServer.close(resolve));
      setDefaultCACertificates(trusted);
      await rm(ca.dir, { recursive: true, force: true });
    }
  });
});
