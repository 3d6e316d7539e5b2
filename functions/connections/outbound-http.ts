import http from 'node:http';
import type { Socket } from 'node:net';

// The built-ins themselves, not their ESM facades, which read every export (see infra/bundling.ts).
const https = process.getBuiltinModule('node:https');
const { connect } = process.getBuiltinModule('node:net');

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
 * Opens the TCP connection to `url` now and gives it to the agent's first request, so that a cold
 * start's handshakes travel while the rest of init runs instead of in front of the first call.
 * TLS follows (for https) on the first turn of the event loop after the connect has gone out, or
 * when the first request asks, whichever comes first. It never fails or delays anything: a
 * connection that fails is dropped and the first request opens its own; one still handshaking is
 * handed over as the agent's own new connections are, and the request's deadline applies to it.
 * Resolves once the connect is under way (the name resolved, connect(2) issued) or has failed;
 * never rejects.
 */
export function preconnect(agent: http.Agent, url: URL): Promise<void> {
  const own = agent as unknown as { createConnection: ConnectionFactory };
  const createConnection = own.createConnection;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const literal = isIpLiteral(url);
  const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
  const tcp = connect({ host, port });
  tcp.on('error', () => {});
  // An idle container may end; a connection no request has used must not keep it alive.
  tcp.unref();

  let opened: Socket | undefined;
  const open = (): Socket => {
    if (opened) return opened;
    opened =
      url.protocol === 'https:'
        ? createConnection.call(agent, {
            host,
            port,
            socket: tcp,
            // SNI carries host names only (RFC 6066), as the agent itself sends it.
            ...(literal ? {} : { servername: host }),
          })
        : tcp;
    opened.on('error', () => {});
    return opened;
  };
  let used = false;
  own.createConnection = function firstConnection(this: http.Agent, options, callback) {
    own.createConnection = createConnection;
    used = true;
    if (tcp.destroyed || opened?.destroyed) return createConnection.call(this, options, callback);
    tcp.ref();
    return open();
  };

  const underway = new Promise<void>((resolve) => {
    // A literal address needs no lookup: connect(2) goes out on the next tick.
    if (literal) setImmediate(resolve);
    else tcp.once('lookup', () => resolve());
    tcp.once('error', () => resolve());
  });
  void underway.then(() =>
    setImmediate(() => {
      if (!used && !tcp.destroyed) open();
    }),
  );
  return underway;
}

/**
 * A URL's host is an IP address exactly when it is dotted-decimal IPv4 or bracketed IPv6: the URL
 * parser normalizes every other IPv4 form. Cheaper than `net.isIP`, whose IPv6 pattern costs about
 * 8 ms the first times it meets a host name.
 */
const isIpLiteral = (url: URL) =>
  url.hostname.startsWith('[') || /^\d{1,3}(?:\.\d{1,3}){3}$/.test(url.hostname);

const transportFor = (url: URL) => (url.protocol === 'http:' ? http : https);
