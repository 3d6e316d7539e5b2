import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { Agent, request } from 'node:https';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HttpsEndpoint, startHttpsEndpoint } from '../../../bench/support/https-endpoint.ts';
import { createThrowawayCa, type ThrowawayCa } from '../../../bench/support/throwaway-ca.ts';

const runNode = promisify(execFile);

describe('startHttpsEndpoint (TLS and round-trip time in front of a plain HTTP server)', () => {
  let ca: ThrowawayCa;
  let upstream: Server;
  let upstreamUrl: URL;
  const endpoints: HttpsEndpoint[] = [];

  beforeAll(async () => {
    ca = await createThrowawayCa();
    upstream = createServer((req, res) =>
      // A JWKS-sized answer (two RSA keys) for /jwks.json.
      res.end(req.url === '/jwks.json' ? 'k'.repeat(1600) : `${req.method} ${req.url}`),
    );
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    upstreamUrl = new URL(`http://127.0.0.1:${(upstream.address() as AddressInfo).port}`);
  });
  afterAll(async () => {
    await Promise.all(endpoints.map((endpoint) => endpoint.close()));
    upstream.close();
  });

  const start = async (rttMs: number) => {
    const endpoint = await startHttpsEndpoint(upstreamUrl, ca, { rttMs });
    endpoints.push(endpoint);
    return endpoint;
  };

  const get = (url: URL, options: { ca?: string; agent?: Agent } = {}) =>
    new Promise<string>((resolve, reject) => {
      request(url, options, (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () => resolve(body));
      })
        .on('error', reject)
        .end();
    });

  it('answers over TLS for a process that trusts the CA through NODE_EXTRA_CA_CERTS', async () => {
    const endpoint = await start(0);
    const script = `require('node:https').get(${JSON.stringify(`${endpoint.url}plants`)}, (r) => { r.setEncoding('utf8'); r.on('data', (d) => process.stdout.write(d)); });`;

    const { stdout } = await runNode(process.execPath, ['-e', script], {
      env: { ...process.env, NODE_EXTRA_CA_CERTS: ca.caFile },
    });

    expect(stdout).toBe('GET /plants');
  });

  it('answers a request sent with the handshake without waiting for a delayed ACK', async () => {
    // Behind the session tickets a TLS 1.3 server sends after the handshake, a small answer on a
    // socket with Nagle's algorithm waits for the client's delayed ACK: about 40 ms on Linux.
    // A fresh process per try: a resumed session (no new tickets) would hide the wait.
    const endpoint = await start(0);
    const script = `let secureAt = 0;
      const request = require('node:https').get(${JSON.stringify(`${endpoint.url.href}jwks.json`)}, (r) => {
        r.resume();
        r.on('end', () => console.log(performance.now() - secureAt));
      });
      request.on('socket', (s) => s.once('secureConnect', () => { secureAt = performance.now(); }));`;
    const afterHandshakeMs = async () => {
      const { stdout } = await runNode(process.execPath, ['-e', script], {
        env: { ...process.env, NODE_EXTRA_CA_CERTS: ca.caFile },
      });
      return Number(stdout);
    };

    // The wait, when there is one, comes back on every try; a busy machine slows only some.
    let fastest = await afterHandshakeMs();
    for (let tries = 1; tries < 5 && fastest >= 25; tries++) {
      fastest = Math.min(fastest, await afterHandshakeMs());
    }

    expect(fastest).toBeLessThan(25);
  });

  it('is refused by a client that does not trust the CA', async () => {
    const endpoint = await start(0);

    await expect(get(endpoint.url)).rejects.toThrow(/certificate/);
  });

  it('makes a new connection cost three round trips (TCP, TLS, request) and a reused one one', async () => {
    const rttMs = 40;
    const endpoint = await start(rttMs);
    const agent = new Agent({ keepAlive: true, ca: ca.caPem });

    const coldStarted = performance.now();
    await get(endpoint.url, { agent });
    const coldMs = performance.now() - coldStarted;
    const warmStarted = performance.now();
    await get(endpoint.url, { agent });
    const warmMs = performance.now() - warmStarted;
    agent.destroy();

    expect(coldMs).toBeGreaterThanOrEqual(3 * rttMs - 5);
    expect(warmMs).toBeGreaterThanOrEqual(rttMs - 5);
    expect(warmMs).toBeLessThan(2 * rttMs);
  });
});
