import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HttpsEndpoint, startHttpsEndpoint } from '../../../bench/support/https-endpoint.ts';
import { startLambdaProcess } from '../../../bench/support/lambda-process.ts';
import { createThrowawayCa, type ThrowawayCa } from '../../../bench/support/throwaway-ca.ts';

/**
 * A function that opens its TCP connection during init, before it has loaded `node:tls`, and
 * starts TLS over it in its first invoke: the runtime loop must trace that handshake without
 * loading `tls` itself (which would move its cost into the function's init).
 */
const handlerSource = `
const { connect } = process.getBuiltinModule('node:net');
const socket = connect({ host: '127.0.0.1', port: Number(process.env.ENDPOINT_PORT) });
socket.on('error', () => {});
const tlsLoadedDuringInit = process.moduleLoadList.includes('NativeModule tls');

export const handler = async () => {
  const https = process.getBuiltinModule('node:https');
  const tls = process.getBuiltinModule('node:tls');
  const secure = tls.connect({ socket, servername: 'localhost' });
  const body = await new Promise((resolve, reject) => {
    https
      .get('https://localhost/hello', { createConnection: () => secure }, (response) => {
        let text = '';
        response.on('data', (chunk) => { text += chunk; });
        response.on('end', () => resolve(text));
      })
      .on('error', reject);
  });
  return { tlsLoadedDuringInit, body };
};
`;

describe('the Lambda runtime loop', () => {
  let ca: ThrowawayCa;
  let upstream: Server;
  let endpoint: HttpsEndpoint;
  let taskRoot: string;

  beforeAll(async () => {
    ca = await createThrowawayCa();
    upstream = createServer((req, res) => res.end(`${req.method} ${req.url}`));
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const { port } = upstream.address() as AddressInfo;
    endpoint = await startHttpsEndpoint(new URL(`http://127.0.0.1:${port}`), ca);
    taskRoot = await mkdtemp(path.join(os.tmpdir(), 'plant-store-loop-'));
    await writeFile(path.join(taskRoot, 'index.mjs'), handlerSource);
  });
  afterAll(async () => {
    await endpoint.close();
    upstream.close();
    await rm(taskRoot, { recursive: true, force: true });
    await rm(ca.dir, { recursive: true, force: true });
  });

  it('traces TLS over a socket opened before the function loaded tls, and does not load it first', async () => {
    const fn = await startLambdaProcess({
      env: {
        _HANDLER: 'index.handler',
        LAMBDA_TASK_ROOT: taskRoot,
        NODE_EXTRA_CA_CERTS: ca.caFile,
        ENDPOINT_PORT: endpoint.url.port,
        PATH: process.env.PATH ?? '/usr/bin:/bin',
      },
    });

    let result: Awaited<ReturnType<typeof fn.invoke>>;
    try {
      result = await fn.invoke({});
    } finally {
      await fn.close();
    }

    expect(result.result).toEqual({ tlsLoadedDuringInit: false, body: 'GET /hello' });
    const [socket] = result.socketTraces;
    expect(socket?.secureAt).toBeGreaterThan(socket?.connectedAt ?? Number.POSITIVE_INFINITY);
    expect(result.requestTraces.map((request) => request.socketId)).toEqual([socket?.id]);
    expect(result.cpuMs).toBeGreaterThan(0);
  });
});
