import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { once } from 'node:events';
import { rm } from 'node:fs/promises';
import https from 'node:https';
import { connect, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { getCACertificates, setDefaultCACertificates } from 'node:tls';
import { Worker } from 'node:worker_threads';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createThrowawayCa, type ThrowawayCa } from '../../../bench/support/throwaway-ca.ts';
import {
  keepAliveAgent,
  type OutboundAgent,
  sendRequest,
} from '../../../functions/connections/outbound-http.ts';
import type { FromServer, IdleAnswer, ServerData } from './idle-answering-server.ts';

/**
 * A server answers a connection that stays idle: Node's with `408 Request Timeout` and its end
 * once `headersTimeout` has passed (dynalite, `npm start`), others with the end alone. None of that
 * is an answer to the request the client sends next on that connection. Two ways the client meets
 * it: it has read the answer already (a process that ran meanwhile), or the answer is still in
 * the kernel when the request goes out (a Lambda environment thawed after the server answered).
 */

type IdleAnsweringServer = {
  readonly url: URL;
  /** Resolves once the server holds `count` connections, TLS done for https. */
  connections(count: number): Promise<void>;
  /** Has the server answer every connection with no request in flight; resolves once it has. */
  answerIdle(answer: IdleAnswer): Promise<void>;
  /** The same, this thread blocked until the answers are sent: it reads none of them meanwhile. */
  answerIdleWhileFrozen(answer: IdleAnswer): void;
  close(): Promise<void>;
};

async function startIdleAnsweringServer(
  protocol: 'http' | 'https',
  tls?: ServerData['tls'],
): Promise<IdleAnsweringServer> {
  const answered = new Int32Array(new SharedArrayBuffer(4));
  const worker = new Worker(new URL('./idle-answering-server.ts', import.meta.url), {
    workerData: { answered, ...(tls && { tls }) } satisfies ServerData,
  });
  const state = { connections: 0, answered: 0, port: 0 };
  worker.on('message', (message: FromServer) => {
    if ('listening' in message) state.port = message.listening;
    else if ('connections' in message) state.connections = message.connections;
    else state.answered += 1;
  });
  const until = (holds: () => boolean) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (!holds()) return;
        worker.off('message', check);
        worker.off('error', reject);
        resolve();
      };
      worker.on('message', check);
      worker.once('error', reject);
      check();
    });
  await until(() => state.port !== 0);
  return {
    url: new URL(`${protocol}://127.0.0.1:${state.port}`),
    connections: (count) => until(() => state.connections >= count),
    async answerIdle(answer) {
      const before = state.answered;
      worker.postMessage(answer);
      await until(() => state.answered > before);
    },
    answerIdleWhileFrozen(answer) {
      const before = Atomics.load(answered, 0);
      worker.postMessage(answer);
      // Bounds a failure only: the server answers in a moment.
      if (Atomics.wait(answered, 0, before, 30_000) === 'timed-out') {
        throw new Error('the server did not answer its idle connections');
      }
    },
    close: async () => {
      await worker.terminate();
    },
  };
}

/** The connections the client opens from now on, as requests meet them (TLS sockets for https). */
function watchConnections(protocol: 'http' | 'https'): { sockets(): Duplex[]; stop(): void } {
  if (protocol === 'https') {
    const spy = vi.spyOn(https.Agent.prototype, 'createConnection');
    return {
      sockets: () => spy.mock.results.map((result) => result.value as Duplex),
      stop: () => spy.mockRestore(),
    };
  }
  const sockets: Duplex[] = [];
  const onSocket = (message: unknown) => sockets.push((message as { socket: Socket }).socket);
  subscribe('net.client.socket', onSocket);
  return { sockets: () => sockets, stop: () => unsubscribe('net.client.socket', onSocket) };
}

/** Turns of the event loop until `holds`: the client reads what arrives between them. */
async function until(holds: () => boolean): Promise<void> {
  while (!holds()) await new Promise((resolve) => setImmediate(resolve));
}

/** Whether a socket no request uses has read anything from the server: data or the end. */
const heard = (socket: Duplex | undefined) =>
  socket !== undefined && (socket.destroyed || socket.readableLength > 0 || socket.readableEnded);

const freeSockets = (agent: OutboundAgent) =>
  Object.values(agent.freeSockets).reduce((count, sockets) => count + (sockets?.length ?? 0), 0);

let ca: ThrowawayCa;
let trusted: string[];
beforeAll(async () => {
  ca = await createThrowawayCa();
  trusted = getCACertificates('default');
  setDefaultCACertificates([...trusted, ca.caPem]);
});
afterAll(async () => {
  setDefaultCACertificates(trusted);
  await rm(ca.dir, { recursive: true, force: true });
});

describe.each(['http', 'https'] as const)('over %s', (protocol) => {
  let server: IdleAnsweringServer;
  let agent: OutboundAgent;
  let watch: ReturnType<typeof watchConnections>;
  beforeEach(async () => {
    const tls = protocol === 'https' ? { key: ca.serverKey, cert: ca.serverCertChain } : undefined;
    server = await startIdleAnsweringServer(protocol, tls);
    watch = watchConnections(protocol);
    agent = keepAliveAgent(server.url, 50);
  });
  afterEach(async () => {
    watch.stop();
    agent.destroy();
    await server.close();
  });

  const get = (path: string) =>
    sendRequest(new URL(path, server.url), {
      method: 'GET',
      headers: {},
      timeoutMs: 30_000,
      maxResponseBytes: 1024,
      agent,
    });

  it.each<IdleAnswer>(['408 and close', '408'])(
    'gives the first request its own answer when the server answered the connection opened ahead (%s) before it',
    async (answer) => {
      await agent.preconnect();
      await server.connections(1);
      await server.answerIdle(answer);
      await until(() => heard(watch.sockets()[0]));

      const response = await get('/plants?first');

      expect(response).toStrictEqual({ statusCode: 200, body: 'GET /plants?first' });
      // The connection opened ahead carried no request.
      expect((watch.sockets()[0] as Socket).bytesWritten).toBe(0);
    },
  );

  it.each<IdleAnswer>(['408 and close', '408', 'close'])(
    'gives the first request its own answer when the server answered the connection opened ahead (%s) while the process was frozen',
    async (answer) => {
      await agent.preconnect();
      await server.connections(1);

      server.answerIdleWhileFrozen(answer);
      const response = get('/plants?first');

      expect(await response).toStrictEqual({ statusCode: 200, body: 'GET /plants?first' });
    },
  );

  it.each<IdleAnswer>(['408 and close', '408', 'close'])(
    'gives the next request its own answer when the server answered a kept-alive connection (%s) while the process was frozen',
    async (answer) => {
      expect(await get('/plants?1')).toStrictEqual({ statusCode: 200, body: 'GET /plants?1' });
      await until(() => freeSockets(agent) === 1);

      server.answerIdleWhileFrozen(answer);
      const response = get('/plants?2');

      expect(await response).toStrictEqual({ statusCode: 200, body: 'GET /plants?2' });
    },
  );
});

describe('a kept-alive connection', () => {
  it('is closed when the server says anything on it while it idles, so that no request takes it', async () => {
    const server = await startIdleAnsweringServer('http');
    const agent = keepAliveAgent(server.url, 50);
    const socket = connect({ host: server.url.hostname, port: Number(server.url.port) });
    try {
      await once(socket, 'connect');
      await server.connections(1);

      agent.keepSocketAlive(socket);
      await server.answerIdle('408');
      await until(() => heard(socket));

      expect(socket.destroyed).toBe(true);
    } finally {
      socket.destroy();
      agent.destroy();
      await server.close();
    }
  });
});
