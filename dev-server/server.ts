import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { bareHost, baseUrl, LocalConfigError } from './config.ts';
import { gatewayError, writeResponse } from './http-gateway.ts';

/** Answers one request that this server has let in; `requestId` is also in `apigw-requestid`. */
export type RequestHandler = (
  req: IncomingMessage,
  res: ServerResponse,
  requestId: string,
) => Promise<void>;

export interface ServerOptions {
  readonly host: string;
  readonly port: number;
  /** See `defaultLimits` in local-api.ts. */
  readonly requestTimeoutMs: number;
  readonly warmUpMs: number;
  readonly log: (line: string) => void;
}

/** The names every local server answers to, besides its HOST and the address a request came to. */
const ownHostNames = ['127.0.0.1', 'localhost', '::1'];
/** In-flight requests get this long to finish at shutdown before their connections are cut. */
const shutdownGraceMs = 5_000;

/**
 * The HTTP listener: it listens at once and holds each request until `handler` is ready, as API
 * Gateway holds one through a cold start. It answers only a `Host` that names this server, so a
 * page on another name that resolves to loopback (DNS rebinding) gets 421, and logs one line per
 * request with the path only: a client may put `?access_token=…` in the query string.
 */
export async function startServer(
  options: ServerOptions,
  handler: Promise<RequestHandler | undefined>,
): Promise<{ url: string; close(): Promise<void> }> {
  const names = [...ownHostNames, bareHost(options.host)];
  const server = createServer(
    {
      requestTimeout: options.requestTimeoutMs,
      headersTimeout: Math.min(options.requestTimeoutMs, 60_000),
      connectionsCheckingInterval: Math.min(options.requestTimeoutMs, 1_000),
    },
    (req, res) => {
      const receivedAt = performance.now();
      res.on('finish', () => {
        const time = new Date().toTimeString().slice(0, 8);
        const ms = Math.round(performance.now() - receivedAt);
        const path = req.url?.split('?')[0];
        options.log(`${time} ${req.method} ${path} ${res.statusCode} ${ms}ms`);
      });
      // Shaped like API Gateway's request ids, e.g. `JKJaXmPLvHcESHA=`.
      const requestId = randomBytes(11).toString('base64');
      res.setHeader('apigw-requestid', requestId);
      // Also the address the request came to, so that HOST=0.0.0.0 answers at this machine's IPs;
      // the socket's own port, since `server.address()` is null once the server has begun to close.
      const arrivedAt = (req.socket.localAddress ?? '').replace(/^::ffff:/, '');
      if (!namesThisServer(req.headers.host, req.socket.localPort, [...names, arrivedAt])) {
        res.setHeader('connection', 'close');
        return writeResponse(res, gatewayError(421));
      }
      // The wait for the handler (only a request during warm-up really waits) has a bound that is
      // unref'd, so it never holds the process open, and cancelled once the race is decided, so
      // that no request leaves a timer behind.
      const bound = new AbortController();
      Promise.race([
        handler,
        delay(options.warmUpMs, undefined, { ref: false, signal: bound.signal }).catch(
          () => undefined,
        ),
      ])
        .finally(() => bound.abort())
        .then((serve) =>
          serve ? serve(req, res, requestId) : writeResponse(res, gatewayError(503)),
        )
        .catch((error: unknown) => {
          // A client that went away mid-request (or timed out) is not the gateway's failure.
          if (req.socket.destroyed) return;
          console.error('local gateway:', error);
          if (!res.headersSent) writeResponse(res, gatewayError(500));
        });
    },
  );
  await listen(server, options.host, options.port);
  const url = baseUrl(options.host, (server.address() as AddressInfo).port);
  return { url, close: () => closeServer(server) };
}

function namesThisServer(host: string | undefined, port: number | undefined, names: string[]) {
  const sent = host?.toLowerCase();
  return names.some((name) => {
    const bracketed = name.includes(':') ? `[${name}]` : name;
    return sent === `${bracketed}:${port}` || (port === 80 && sent === bracketed);
  });
}

async function listen(server: Server, host: string, port: number): Promise<void> {
  server.listen(port, host);
  try {
    await once(server, 'listening');
  } catch (error) {
    const { code } = error as NodeJS.ErrnoException;
    const why =
      code === 'EADDRINUSE'
        ? `Port ${port} on ${host} is already in use. Stop whatever uses it, or choose another ` +
          `port with the PORT environment variable, e.g. PORT=${port + 1} npm start`
        : code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND'
          ? `HOST ${host} is not an address of this machine`
          : undefined;
    throw why === undefined ? error : new LocalConfigError(why, { cause: error });
  }
}

/** Stops listening, lets requests in flight finish (for up to `shutdownGraceMs`), then returns. */
async function closeServer(server: Server): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const grace = setTimeout(() => server.closeAllConnections(), shutdownGraceMs);
  await closed;
  clearTimeout(grace);
}
