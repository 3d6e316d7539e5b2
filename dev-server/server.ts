import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import type { Server } from 'node:http';
import { createServer, type IncomingMessage, type ServerResponse, STATUS_CODES } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { bareHost, baseUrl, LocalConfigError } from './config.ts';
import { type GatewayResponse, gatewayError, refuse, writeResponse } from './http-gateway.ts';

export type RequestHandler = (
  req: IncomingMessage,
  res: ServerResponse,
  requestId: string,
) => Promise<void>;

type ServerOptions = {
  readonly requestTimeoutMs: number;
  readonly maxConnections: number;
  readonly host: string;
  readonly port: number;
  readonly log: (line: string) => void;
};

/** The names every local server answers to, besides its HOST and the address a request came to. */
const ownHostNames = ['127.0.0.1', 'localhost', '::1'];
const shutdownGraceMs = 5_000;

/** Holds requests until `handler` is ready (503 if it never is); a foreign `Host` gets 421. */
export async function startServer(
  options: ServerOptions,
  handler: Promise<RequestHandler | undefined>,
): Promise<{ url: string; close(): Promise<void> }> {
  const names = [...ownHostNames, bareHost(options.host)];
  const inFlight = new Set<ServerResponse>();
  let closing = false;
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
      // Once shutdown has begun, no client sends another request on this connection.
      if (closing) res.setHeader('connection', 'close');
      const host = toOriginForm(req);
      // Also the address it came to, so that HOST=0.0.0.0 answers at this machine's IPs.
      const arrivedAt = (req.socket.localAddress ?? '').replace(/^::ffff:/, '');
      if (!namesThisServer(host, req.socket.localPort, [...names, arrivedAt])) {
        return refuse(res, gatewayError(421));
      }
      inFlight.add(res);
      res.on('close', () => inFlight.delete(res));
      handler
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
  server.maxConnections = options.maxConnections;
  server.on('clientError', answerClientError);
  server.on('checkExpectation', (_req, res: ServerResponse) => refuse(res, gatewayError(417)));
  await listen(server, options.host, options.port);
  const url = baseUrl(options.host, (server.address() as AddressInfo).port);
  const close = async () => {
    closing = true;
    for (const res of inFlight) if (!res.headersSent) res.setHeader('connection', 'close');
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    const grace = setTimeout(() => server.closeAllConnections(), shutdownGraceMs);
    await closed;
    clearTimeout(grace);
  };
  return { url, close };
}

/** RFC 9112 3.2.2: an absolute-form target's authority names the host; returns it. */
function toOriginForm(req: IncomingMessage): string | undefined {
  const absolute = /^http:\/\/([^/?#]*)([^#]*)/i.exec(req.url ?? '');
  if (absolute === null) return req.headers.host;
  const [, authority = '', rest = ''] = absolute;
  req.url = rest.startsWith('/') ? rest : `/${rest}`;
  req.headers.host = authority;
  const at = req.rawHeaders.findIndex((name, index) => index % 2 === 0 && /^host$/i.test(name));
  if (at < 0) req.rawHeaders.push('Host', authority);
  else req.rawHeaders[at + 1] = authority;
  return authority;
}

/** Node's own answers to a request it could not read whole, in the gateway's shape. */
const clientErrorStatus: Readonly<Record<string, 408 | 413 | 431>> = {
  HPE_HEADER_OVERFLOW: 431,
  ERR_HTTP_REQUEST_TIMEOUT: 408,
  HPE_CHUNK_EXTENSIONS_OVERFLOW: 413,
};

function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  const status = clientErrorStatus[error.code ?? ''] ?? 400;
  // The field Node's default handler reads to know whether an answer has begun on the socket.
  const answering = (socket as Duplex & { _httpMessage?: ServerResponse })._httpMessage;
  if (error.code !== 'ECONNRESET' && socket.writable && !answering?.headersSent) {
    socket.write(rawResponse(gatewayError(status)));
  }
  socket.destroy(error);
}

function rawResponse({ statusCode, headers, body }: GatewayResponse): Buffer {
  const lines = [
    `HTTP/1.1 ${statusCode} ${STATUS_CODES[statusCode] ?? ''}`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    `content-length: ${body.length}`,
    'connection: close',
  ];
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`), body]);
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
  await once(server, 'listening').catch((error: NodeJS.ErrnoException) => {
    const { code } = error;
    const why =
      code === 'EADDRINUSE'
        ? `Port ${port} on ${host} is already in use. Stop whatever uses it, or choose another ` +
          `port with the PORT environment variable, e.g. PORT=${port + 1} npm start`
        : code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND'
          ? `HOST ${host} is not an address of this machine`
          : undefined;
    throw why === undefined ? error : new LocalConfigError(why, { cause: error });
  });
}

export function closeNow(server: Server): Promise<void> {
  return new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
