import http from 'node:http';
import type { Duplex } from 'node:stream';
import type { ConnectionOptions } from 'node:tls';

// The built-ins themselves, not their ESM facades, which read every export
// (infra/bundling/bundling.ts).
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
 * Sends one HTTP(S) request and reads the whole answer, over `node:http(s)`: `fetch` would load
 * undici into every cold start. Every status resolves; a network error, the deadline or an
 * oversized answer rejects.
 *
 * A connection that idled before the request (kept alive by the agent, or opened ahead) may hold
 * the server's word on that idle connection rather than an answer: `408 Request Timeout`, or its
 * end, still unread when the request went out (a process frozen meanwhile, as Lambda freezes one).
 * The server processed no request then, so the request goes again: after a 408 on such a
 * connection, or a failure before any answer. On a connection opened for the request both are
 * final. Each retry drops the idle connection it tried, and one deadline covers every attempt.
 */
export function sendRequest(url: URL, options: OutboundRequest): Promise<OutboundResponse> {
  const { method, headers, agent, timeoutMs, maxResponseBytes } = options;
  return new Promise((resolve, reject) => {
    let current: http.ClientRequest | undefined;
    let expired = false;
    const timer = setTimeout(() => {
      expired = true;
      current?.destroy(new Error(`${url.host} did not answer within ${timeoutMs} ms`));
    }, timeoutMs);
    const fail = (error: Error) => {
      clearTimeout(timer);
      reject(error);
    };

    const send = () => {
      let answered = false;
      let abandoned = false;
      const idled = () =>
        request.reusedSocket || (request.socket !== null && openedAhead.has(request.socket));
      const again = () => {
        abandoned = true;
        request.destroy();
        send();
      };
      const request = transportFor(url).request(url, { method, headers, agent }, (response) => {
        answered = true;
        if (response.statusCode === 408 && idled()) {
          again();
          return;
        }
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
        response.on('error', fail);
      });
      current = request;
      request.on('error', (error) => {
        if (abandoned) return;
        if (!answered && !expired && idled()) again();
        else fail(error);
      });
      request.end(options.body);
    };
    send();
  });
}

/**
 * A keep-alive agent for one endpoint, whose first connection can be opened ahead of any request
 * (`preconnect`).
 */
export interface OutboundAgent extends http.Agent {
  /**
   * Opens the connection to the endpoint now, TCP and (for https) TLS over it, and gives it to the
   * first request, so that a cold start's handshakes travel while the rest of init runs instead of
   * in front of the first call ([decision 0125](../../docs/decisions/0125-issuer-tls-in-init.md)).
   * It never fails or delays anything: a connection that fails is dropped and the first request
   * opens its own; one still handshaking is handed over as the agent's own new connections are,
   * and the request's deadline applies to it. One that has data waiting or has ended by then is
   * dropped too: a server answers a connection left idle, 408 or its end, and that is no answer
   * to the request. Resolves once the connect is under way (the name resolved, connect(2) issued)
   * or has failed; never rejects.
   */
  preconnect(): Promise<void>;
}

/** Connections kept open across invocations of a warm container. */
export function keepAliveAgent(url: URL, maxSockets: number): OutboundAgent {
  const Agent = url.protocol === 'http:' ? HttpAgent : HttpsAgent;
  return new Agent(url, { keepAlive: true, maxSockets });
}

type ConnectionCallback = (error: Error | null, stream: Duplex) => void;

/** The connections `preconnect` opened and handed to a request: they idled before it, as reused ones. */
const openedAhead = new WeakSet<object>();

/**
 * Whether a connection no request is using has heard from the server: data (its answer to the
 * idle connection, a 408) or the connection's end. Such a connection must not carry a request.
 */
const spoken = (socket: Duplex) =>
  socket.destroyed || socket.readableLength > 0 || socket.readableEnded;

/** A kept-alive connection that hears from the server while idle is closed, so the agent skips it. */
function dropSpoken(this: Duplex) {
  this.destroy();
}

/**
 * One subclass per transport: `createConnection`, `keepSocketAlive` and `reuseSocket` are the
 * agent's documented points of extension.
 */
const outboundAgent = (Base: typeof http.Agent) =>
  class extends Base implements OutboundAgent {
    readonly #url: URL;
    /** Set by `preconnect` until the first request takes its connection. */
    #first: (() => Duplex | undefined) | undefined;

    constructor(url: URL, options: http.AgentOptions) {
      super(options);
      this.#url = url;
    }

    override createConnection(
      options: http.ClientRequestArgs,
      callback?: ConnectionCallback,
    ): Duplex | null | undefined {
      const first = this.#first;
      this.#first = undefined;
      return first?.() ?? super.createConnection(options, callback);
    }

    // Recent versions of Node's agent guard its idle connections the same way; this guard keeps the
    // promise on any version.
    override keepSocketAlive(socket: Duplex): boolean {
      const kept: unknown = super.keepSocketAlive(socket);
      if (!kept) return false;
      // Reading, so that what arrives while the connection idles is seen, and it is dropped.
      socket.once('data', dropSpoken);
      socket.once('end', dropSpoken);
      return true;
    }

    override reuseSocket(socket: Duplex, request: http.ClientRequest): void {
      socket.removeListener('data', dropSpoken);
      socket.removeListener('end', dropSpoken);
      super.reuseSocket(socket, request);
      // The request fails on it then, and `sendRequest` sends it again.
      if (spoken(socket)) socket.destroy();
    }

    preconnect(): Promise<void> {
      const url = this.#url;
      const host = url.hostname.replace(/^\[|\]$/g, '');
      const literal = isIpLiteral(url);
      const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
      const tcp = connect({ host, port });
      tcp.on('error', () => {});
      // An idle container may end; a connection no request has used must not keep it alive.
      tcp.unref();

      // For https, the agent's own `createConnection` runs TLS over the socket given, as it would
      // over one of its own, with the agent's TLS options and session cache.
      const tlsOptions: http.ClientRequestArgs & ConnectionOptions = {
        host,
        port,
        socket: tcp,
        // SNI carries host names only (RFC 6066), as the agent itself sends it.
        ...(literal ? {} : { servername: host }),
      };
      // The handshake starts once the connect is made, while init goes on.
      const opened =
        url.protocol === 'https:' ? (super.createConnection(tlsOptions) ?? undefined) : tcp;
      opened?.on('error', () => {});
      this.#first = () => {
        if (opened === undefined || spoken(tcp) || spoken(opened)) {
          opened?.destroy();
          tcp.destroy();
          return undefined;
        }
        tcp.ref();
        openedAhead.add(opened);
        return opened;
      };

      const underway = new Promise<void>((resolve) => {
        // A literal address needs no lookup: connect(2) goes out on the next tick.
        if (literal) setImmediate(resolve);
        else tcp.once('lookup', () => resolve());
        tcp.once('error', () => resolve());
      });
      return underway;
    }
  };

const HttpAgent = outboundAgent(http.Agent);
const HttpsAgent = outboundAgent(https.Agent);

/**
 * A URL's host is an IP address exactly when it is dotted-decimal IPv4 or bracketed IPv6: the URL
 * parser normalizes every other IPv4 form. Tested here rather than with `net.isIP`, whose IPv6
 * pattern is slow the first times it meets a host name, on the cold path.
 */
const isIpLiteral = (url: URL) =>
  url.hostname.startsWith('[') || /^\d{1,3}(?:\.\d{1,3}){3}$/.test(url.hostname);

const transportFor = (url: URL) => (url.protocol === 'http:' ? http : https);
