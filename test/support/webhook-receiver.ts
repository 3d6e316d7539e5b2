import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** One request the receiver got, whatever it answered. */
export interface ReceivedAttempt {
  readonly path: string;
  /** `webhook-id`, `webhook-timestamp` */
  readonly id: string;
  readonly timestamp: number;
  /** `webhook-signature`, as sent */
  readonly signature: string;
  readonly body: string;
  /** Whether `standardwebhooks` verified its signature with the receiver's secret. */
  readonly verified: boolean;
  /** `performance.now()` when its body had arrived. */
  readonly at: number;
  /** The how-manieth request with this webhook-id, from 1. */
  readonly attempt: number;
}

/** How the receiver answers one request. */
export type Answer =
  | { readonly status: number; readonly headers?: Readonly<Record<string, string>> }
  | { readonly status: number; readonly afterMs: number }
  | 'hang'
  | 'reset';

export interface WebhookReceiver {
  /** `http://127.0.0.1:<port>/hook` */
  readonly url: string;
  readonly attempts: readonly ReceivedAttempt[];
  /** The attempts answered 2xx, by webhook-id: what the deliverer saw acknowledged. */
  readonly acknowledged: ReadonlyMap<string, ReceivedAttempt>;
  /** Resolves once `done()` holds, checked after every request; rejects after `timeoutMs`. */
  until(done: () => boolean, timeoutMs?: number): Promise<void>;
  /** Stops listening and cuts every connection: the receiver is down (connection refused). */
  down(): Promise<void>;
  /** Listens again, on the same port. */
  up(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A subscriber on loopback that verifies each signature with the `standardwebhooks` package, as
 * a subscriber does, records every attempt, and answers as `answer` says: a status (a redirect's
 * Location included), a late answer, no answer at all, or a reset connection.
 */
export async function startWebhookReceiver(options: {
  readonly secret: string;
  readonly answer?: (attempt: ReceivedAttempt) => Answer;
}): Promise<WebhookReceiver> {
  const verifier = new Webhook(options.secret);
  const answerOf = options.answer ?? (() => ({ status: 200 }));
  const attempts: ReceivedAttempt[] = [];
  const acknowledged = new Map<string, ReceivedAttempt>();
  const counts = new Map<string, number>();
  const sockets = new Set<Socket>();
  const waiters = new Set<() => void>();
  const timers = new Set<NodeJS.Timeout>();

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req as AsyncIterable<Buffer>) chunks.push(chunk);
    const body = Buffer.concat(chunks).toString('utf8');
    const headers = Object.fromEntries(
      Object.entries(req.headers).map(([name, value]) => [name, String(value)]),
    );
    let verified = true;
    try {
      verifier.verify(body, headers, { jsonParse: false });
    } catch {
      verified = false;
    }
    const id = headers['webhook-id'] ?? '';
    const attempt: ReceivedAttempt = {
      path: req.url ?? '/',
      id,
      timestamp: Number(headers['webhook-timestamp']),
      signature: headers['webhook-signature'] ?? '',
      body,
      verified,
      at: performance.now(),
      attempt: (counts.get(id) ?? 0) + 1,
    };
    counts.set(id, attempt.attempt);
    attempts.push(attempt);
    const answer: Answer = verified ? answerOf(attempt) : { status: 400 };
    const respond = (status: number, extra: Readonly<Record<string, string>> = {}) => {
      if (res.destroyed) return;
      res.writeHead(status, extra).end();
      if (status >= 200 && status < 300) acknowledged.set(id, attempt);
      for (const waiter of waiters) waiter();
    };
    for (const waiter of waiters) waiter();
    if (answer === 'hang') return;
    if (answer === 'reset') {
      req.socket.resetAndDestroy();
      return;
    }
    if ('afterMs' in answer) {
      const timer = setTimeout(() => {
        timers.delete(timer);
        respond(answer.status);
      }, answer.afterMs);
      timers.add(timer);
      return;
    }
    respond(answer.status, answer.headers);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => res.destroy());
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  const listen = async (port: number) => {
    server.listen(port, '127.0.0.1');
    await once(server, 'listening');
    return (server.address() as AddressInfo).port;
  };
  const port = await listen(0);
  const down = async () => {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const socket of sockets) socket.destroy();
    await closed;
  };

  return {
    url: `http://127.0.0.1:${port}/hook`,
    attempts,
    acknowledged,
    until(done, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (!done()) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(`the receiver waited ${timeoutMs} ms; it got ${attempts.length} requests`),
          );
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    down,
    async up() {
      await listen(port);
    },
    async close() {
      for (const timer of timers) clearTimeout(timer);
      if (server.listening) await down();
    },
  };
}
