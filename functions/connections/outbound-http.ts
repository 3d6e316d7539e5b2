import http from 'node:http';
import type { Duplex } from 'node:stream';
import type { ConnectionOptions } from 'node:tls';

// The built-ins themselves, not their ESM facades, which read every export
// (infra/bundling/bundling.ts).
const https = process.getBuiltinModule('node:https');
const { connect } = process.getBuiltinModule('node:net');

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
 * Over `node:http(s)`: `fetch` would load undici into every cold start. A connection that idled
 * (kept alive, or opened ahead) may hold the server's 408 or end, unread while Lambda froze the
 * process: no request was processed, so it goes again on a fresh connection, within one deadline.
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

export interface OutboundAgent extends http.Agent {
  /**
   * Opens the first request's connection now, so a cold start's handshakes travel during init
   * (docs/decisions/0125-issuer-tls-in-init.md). Never fails or delays: a connection that failed
   * or heard from the server is dropped. Resolves once the connect is under way; never rejects.
   */
  preconnect(): Promise<void>;
}

export function keepAliveAgent(url: URL, maxSockets: number): OutboundAgent {
  const Agent = url.protocol === 'http:' ? HttpAgent : HttpsAgent;
  return new Agent(url, { keepAlive: true, maxSockets });
}

type ConnectionCallback = (error: Error | null, stream: Duplex) => void;

/** Connections `preconnect` handed to a request: they idled before it, as reused ones. */
const openedAhead = new WeakSet<object>();

/** An idle connection that has heard from the server (a 408, its end) must carry no request. */
const spoken = (socket: Duplex) =>
  socket.destroyed || socket.readableLength > 0 || socket.readableEnded;

function dropSpoken(this: Duplex) {
  this.destroy();
}

/** `createConnection`, `keepSocketAlive` and `reuseSocket` are the agent's documented hooks. */
const outboundAgent = (Base: typeof http.Agent) =>
  class extends Base implements OutboundAgent {
    readonly #url: URL;
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

    // Recent Node agents guard idle connections too; this keeps the promise on any version.
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

      // For https, the agent's own TLS over this socket, with its options and session cache.
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

/** The URL parser normalizes other IPv4 forms; `net.isIP` is slow at first, on the cold path. */

const isIpLiteral = (url: URL) =>
  url.hostname.startsWith('[') || /^\d{1,3}(?:\.\d{1,3}){3}$/.test(url.hostname);

const transportFor = (url: URL) => (url.protocol === 'http:' ? http : https);
