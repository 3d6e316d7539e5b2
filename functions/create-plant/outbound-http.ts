import http from 'node:http';
import https from 'node:https';
import { isIP, type Socket } from 'node:net';

/** The function's calls out: DynamoDB, and the issuer's JWKS. */
export type OutboundRequest = {
  readonly method: 'GET' | 'POST';
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
  /** One deadline from connect to last byte: a stalled connection must end. */
  readonly timeoutMs: number;
  /** An answer larger than this is cut off and fails. */
  readonly maxResponseBytes: number;
  readonly agent?: http.Agent;
};

export type OutboundResponse = { readonly statusCode: number; readonly body: string };

/**
 * One HTTP(S) exchange over `node:http(s)` (no `fetch`: undici would cost the cold start ~20 ms).
 * Every status resolves; a network error, the deadline or an oversized answer rejects.
 */
export function exchange(url: URL, options: OutboundRequest): Promise<OutboundResponse> {
  const { method, headers, agent, timeoutMs, maxResponseBytes } = options;
  return new Promise((resolve, reject) => {
    const request = transportFor(url).request(url, { method, headers, agent }, (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxResponseBytes) {
          request.destroy(new Error(`${url.host} answered more than ${maxResponseBytes} bytes`));
        } else chunks.push(chunk);
      });
      response.on('end', () => {
        clearTimeout(timer);
        resolve({
          statusCode: response.statusCode ?? 0,
          body: Buffer.concat(chunks).toString('utf8'),
        });
      });
      response.on('error', reject);
    });
    const timer = setTimeout(
      () => request.destroy(new Error(`${url.host} did not answer within ${timeoutMs} ms`)),
      timeoutMs,
    );
    request.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    request.end(options.body);
  });
}

/** Connections kept open across invocations of a warm container. */
export function keepAliveAgent(url: URL, maxSockets: number): http.Agent {
  return new (transportFor(url).Agent)({ keepAlive: true, maxSockets });
}

type ConnectionFactory = (options: object, callback?: unknown) => Socket;

/**
 * Opens one connection to `url` now (TCP, then TLS for https) and gives it to the agent's first
 * request, so a cold start's handshake runs while the rest of the container starts instead of in
 * front of the first call. It never fails or delays anything: a connection that fails is dropped
 * and the first request opens its own; one still handshaking is handed over as the agent's own
 * new connections are, and the request's deadline applies to it.
 */
export function preconnect(agent: http.Agent, url: URL): void {
  const own = agent as unknown as { createConnection: ConnectionFactory };
  const createConnection = own.createConnection;
  const hostname = url.hostname.replace(/^\[|\]$/g, '');
  const socket = createConnection.call(agent, {
    host: hostname,
    port: Number(url.port) || (url.protocol === 'https:' ? 443 : 80),
    // SNI carries host names only (RFC 6066), as the agent itself sends it.
    ...(isIP(hostname) === 0 ? { servername: hostname } : {}),
  });
  socket.on('error', () => {});
  // An idle container may end; the open connection must not keep it alive.
  socket.unref();
  own.createConnection = function firstConnection(this: http.Agent, options, callback) {
    own.createConnection = createConnection;
    if (socket.destroyed) return createConnection.call(this, options, callback);
    socket.ref();
    return socket;
  };
}

const transportFor = (url: URL) => (url.protocol === 'http:' ? http : https);
