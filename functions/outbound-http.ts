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
 * Sends one HTTP(S) request and reads the whole answer, over `node:http(s)` (no `fetch`: undici would cost the cold start ~20 ms).
 * Every status resolves; a network error, the deadline or an oversized answer rejects.
 */
export function sendRequest(url: URL, options: OutboundRequest): Promise<OutboundResponse> {
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
 * Opens one connection to `url` (TCP, then TLS for https) as soon as the module that asks has
 * finished loading, and gives it to the agent's first request: a cold start's handshake then runs
 * while the runtime fetches the first event and the JWKS is fetched, instead of in front of the
 * first call. It is deferred to the next turn of the event loop so that loading the module stays
 * cheap. It never fails or delays anything: a connection that fails is dropped and the first
 * request opens its own; one still handshaking is handed over as the agent's own new connections
 * are, and the request's deadline applies to it.
 */
export function preconnect(agent: http.Agent, url: URL): void {
  const own = agent as unknown as { createConnection: ConnectionFactory };
  const createConnection = own.createConnection;
  let opened: Socket | undefined;
  let used = false;
  own.createConnection = function firstConnection(this: http.Agent, options, callback) {
    own.createConnection = createConnection;
    used = true;
    if (!opened || opened.destroyed) return createConnection.call(this, options, callback);
    opened.ref();
    return opened;
  };
  setImmediate(() => {
    if (used) return;
    const hostname = url.hostname.replace(/^\[|\]$/g, '');
    opened = createConnection.call(agent, {
      host: hostname,
      port: Number(url.port) || (url.protocol === 'https:' ? 443 : 80),
      // SNI carries host names only (RFC 6066), as the agent itself sends it.
      ...(isIP(hostname) === 0 ? { servername: hostname } : {}),
    });
    opened.on('error', () => {});
    // An idle container may end; a connection no request has used must not keep it alive.
    opened.unref();
  });
}

const transportFor = (url: URL) => (url.protocol === 'http:' ? http : https);
