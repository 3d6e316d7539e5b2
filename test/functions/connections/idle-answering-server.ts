import {
  createServer as createHttpServer,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { parentPort, workerData } from 'node:worker_threads';

/**
 * A loopback HTTP(S) server in a worker thread of its own, so that it can answer a connection while
 * the test's thread is blocked, as a frozen Lambda environment is: it answers every request with
 * `<method> <path>`, and on the test's word answers each connection that has no request in
 * flight the way a server answers a connection left idle. Started by `idle-connections.test.ts`.
 */
/**
 * `408 and close`: what Node's HTTP server does once `headersTimeout` has passed with no request
 * (dynalite's); `408`: the answer with the connection left open; `close`: the end alone, as a server
 * closes a kept-alive connection.
 */
export type IdleAnswer = '408 and close' | '408' | 'close';

export type ServerData = {
  /** Slot 0 counts the test's words carried out: the test thread waits on it. */
  readonly answered: Int32Array;
  readonly tls?: { readonly key: string; readonly cert: string };
};

export type FromServer =
  | { readonly listening: number }
  | { readonly connections: number }
  | { readonly answered: number };

/** What Node's HTTP server writes to a connection that sent no request in time. */
const requestTimeout = 'HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n';

const { answered, tls } = workerData as ServerData;
const port = parentPort;
if (port === null) throw new Error('idle-answering-server.ts runs in a worker thread');

const open = new Set<Socket>();
const busy = new Set<Socket>();
let connections = 0;

const respond = (request: IncomingMessage, response: ServerResponse) => {
  busy.add(request.socket);
  response.on('finish', () => busy.delete(request.socket));
  response.end(`${request.method} ${request.url}`);
};
const server = tls ? createHttpsServer(tls, respond) : createHttpServer(respond);
// The client's idle connections stay open until the test has them answered.
server.keepAliveTimeout = 0;

server.on(tls ? 'secureConnection' : 'connection', (socket: Socket) => {
  open.add(socket);
  socket.on('close', () => open.delete(socket));
  connections += 1;
  port.postMessage({ connections } satisfies FromServer);
});

port.on('message', (answer: IdleAnswer) => {
  const idle = [...open].filter((socket) => !busy.has(socket));
  // Each answer handed to the kernel (and the end sent), so on loopback at the client's side.
  const sent = idle.map(
    (socket) =>
      new Promise<void>((done) => {
        if (answer === '408') socket.write(requestTimeout, () => done());
        else if (answer === 'close') socket.end(() => done());
        else socket.end(requestTimeout, () => done());
      }),
  );
  void Promise.all(sent).then(() => {
    Atomics.add(answered, 0, 1);
    Atomics.notify(answered, 0);
    port.postMessage({ answered: idle.length } satisfies FromServer);
  });
});

server.listen(0, '127.0.0.1', () => {
  port.postMessage({ listening: (server.address() as AddressInfo).port } satisfies FromServer);
});
