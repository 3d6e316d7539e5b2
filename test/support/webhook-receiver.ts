import {
  createServer as createHttpServer,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { Webhook } from 'standardwebhooks';
import type { ThrowawayCa } from '../../bench/support/throwaway-ca.ts';

/** What the receiver does with one delivery. */
export type ReceiverBehaviour =
  | { readonly kind: 'answer'; readonly status: number; readonly afterMs?: number }
  | { readonly kind: 'redirect'; readonly status: number; readonly location: string }
  | { readonly kind: 'hang' }
  | { readonly kind: 'reset' };

/** One request as the receiver saw it. */
export type ReceivedWebhook = {
  readonly path: string;
  readonly headers: Readonly<Record<string, string | undefined>>;
  /** The body exactly as sent. */
  readonly body: string;
  /** `standardwebhooks` accepted the signature with the receiver's secret. */
  readonly verified: boolean;
  /** Why it did not, when it did not. */
  readonly verifyError?: string;
  /** `Date.now()` when the whole request had arrived. */
  readonly receivedAt: number;
  /** The status it was answered with, once answered; absent while it hangs, or if reset. */
  readonly answered?: number;
};

export type WebhookReceiverOptions = {
  /** The `whsec_...` secret the receiver verifies with. */
  readonly secret: string;
  /**
   * What to do, chosen by the plant's `name` in the body (undefined when the body has none).
   * @default answer 200 at once
   */
  readonly behaviour?: (name: string | undefined) => ReceiverBehaviour;
  /** Serve HTTPS with this CA's server chain; the client trusts the CA. @default plain HTTP */
  readonly tls?: ThrowawayCa;
};

export type WebhookReceiver = {
  /** The URL to deliver to: `http(s)://127.0.0.1:<port>/plant/webhook`. */
  readonly url: URL;
  received(): readonly ReceivedWebhook[];
  /** Stops listening and cuts every connection: the receiver is down (connection refused). */
  down(): Promise<void>;
  /** Listens again, on the same port. */
  up(): Promise<void>;
  /** Stops it; requests still hanging are cut off. */
  close(): Promise<void>;
};

/**
 * A subscriber's endpoint on loopback, as a subscriber would write one: it verifies every
 * request's signature with the `standardwebhooks` package and nothing else, records it, and
 * answers as `behaviour` says: any status, late, a redirect, never, or by resetting the connection.
 */
export async function startWebhookReceiver(
  options: WebhookReceiverOptions,
): Promise<WebhookReceiver> {
  const verifier = new Webhook(options.secret);
  const received: { -readonly [key in keyof ReceivedWebhook]: ReceivedWebhook[key] }[] = [];
  const behaviour =
    options.behaviour ?? ((): ReceiverBehaviour => ({ kind: 'answer', status: 200 }));
  const timers = new Set<NodeJS.Timeout>();

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const headers = Object.fromEntries(
      Object.entries(request.headers).map(([name, value]) => [name, String(value)]),
    );
    let verifyError: string | undefined;
    try {
      verifier.verify(body, headers);
    } catch (error) {
      verifyError = String(error);
    }
    const record: (typeof received)[number] = {
      path: request.url ?? '',
      headers,
      body,
      verified: verifyError === undefined,
      ...(verifyError === undefined ? {} : { verifyError }),
      receivedAt: Date.now(),
    };
    received.push(record);

    const action = behaviour(nameOf(body));
    if (action.kind === 'hang') return;
    if (action.kind === 'reset') {
      // An RST, not a FIN: the connection is reset under the client. Over TLS the request's socket
      // wraps the TCP one, and only the TCP socket can send a reset.
      const { remotePort } = request.socket;
      (tcpSockets.get(remotePort ?? -1) ?? request.socket).resetAndDestroy();
      return;
    }
    if (action.kind === 'redirect') {
      response.writeHead(action.status, { location: action.location }).end();
      record.answered = action.status;
      return;
    }
    const answer = () => {
      if (response.destroyed) return;
      response.writeHead(action.status).end('received');
      record.answered = action.status;
    };
    if (action.afterMs === undefined) answer();
    else {
      const timer = setTimeout(() => {
        timers.delete(timer);
        answer();
      }, action.afterMs);
      timers.add(timer);
    }
  };

  const server = options.tls
    ? createHttpsServer({ key: options.tls.serverKey, cert: options.tls.serverCertChain }, handle)
    : createHttpServer(handle);
  const tcpSockets = new Map<number, Socket>();
  server.on('connection', (socket: Socket) => {
    const { remotePort } = socket;
    if (remotePort === undefined) return;
    tcpSockets.set(remotePort, socket);
    socket.on('close', () => tcpSockets.delete(remotePort));
  });
  const listen = (port: number) =>
    new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  await listen(0);
  const { port } = server.address() as AddressInfo;
  const down = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return {
    url: new URL(`${options.tls ? 'https' : 'http'}://127.0.0.1:${port}/plant/webhook`),
    received: () => [...received],
    down,
    up: () => listen(port),
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      if (server.listening) await down();
    },
  };
}

function nameOf(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as { name?: unknown };
    return typeof parsed.name === 'string' ? parsed.name : undefined;
  } catch {
    return undefined;
  }
}
