import { type AddressInfo, connect, createServer, type Server, type Socket } from 'node:net';

/**
 * What the proxy does to one DynamoDB request:
 * - `pass`: forward it to the target and the answer back;
 * - `reset`: accept, read the request, then reset the connection (ECONNRESET);
 * - `hang`: accept, read the request and never answer;
 * - `delay`: wait `ms` before forwarding (nothing is forwarded if the client gave up meanwhile);
 * - `http500`: answer a raw HTTP 500 with an HTML body, as a load balancer in front might;
 * - `dynamoError`: answer a DynamoDB JSON error (`__type`, `message`) with the given status;
 * - `forwardThenDrop`: forward it (the write happens at the target) and never answer the client.
 */
export type Fault =
  | { readonly kind: 'pass' }
  | { readonly kind: 'reset' }
  | { readonly kind: 'hang' }
  | { readonly kind: 'delay'; readonly ms: number }
  | { readonly kind: 'http500' }
  | { readonly kind: 'dynamoError'; readonly status: number; readonly type: string }
  | { readonly kind: 'forwardThenDrop' };

export type DynamoDbOperationName = 'PutItem' | 'GetItem' | string;

export type FaultRule = {
  /** Only requests for this operation (the `x-amz-target` suffix); @default every operation */
  readonly operation?: DynamoDbOperationName;
  /** Apply to this many matching requests, then pass; @default every matching request */
  readonly times?: number;
};

export type ProxiedRequest = { readonly operation: string; readonly fault: Fault['kind'] };

export type FaultProxy = {
  /** `http://127.0.0.1:<port>`: point the DynamoDB client here. */
  readonly endpoint: string;
  /** Inject `fault` into the requests the rule matches, from now on; the previous rule is replaced. */
  inject(fault: Fault, rule?: FaultRule): Promise<void>;
  /** Stop listening, so that connecting is refused (ECONNREFUSED), until `restore`. */
  refuse(): Promise<void>;
  /** Listen again on the same port and pass everything. */
  restore(): Promise<void>;
  /** Every request the proxy has seen, in order, with what it did to it. */
  readonly requests: () => readonly ProxiedRequest[];
  close(): Promise<void>;
};

/** A request head larger than this is not DynamoDB's; the connection is dropped. */
const maxHeadBytes = 64 * 1024;
/** Give up on a client that opens a connection and sends no complete request head. */
const headTimeoutMs = 5_000;

/**
 * A TCP proxy on loopback in front of a DynamoDB-compatible server, with faults injected at the
 * socket: connections refused, reset, left hanging or delayed, raw 5xx answers, DynamoDB error
 * answers, and writes forwarded whose answer is dropped. It reads each request's head to learn
 * the operation and asks the target to close after answering (`connection: close`), so that
 * every request gets its own connection and its own fault. Every socket and timer it makes is
 * ended by `close`.
 */
export async function startFaultProxy(target: string): Promise<FaultProxy> {
  const upstream = new URL(target);
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const seen: ProxiedRequest[] = [];
  let fault: Fault = { kind: 'pass' };
  let rule: FaultRule = {};
  let remaining = Number.POSITIVE_INFINITY;
  let closed = false;

  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    return socket;
  };
  const after = (ms: number, run: () => void): (() => void) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      run();
    }, ms);
    timers.add(timer);
    return () => {
      clearTimeout(timer);
      timers.delete(timer);
    };
  };

  const choose = (operation: string): Fault => {
    if (fault.kind === 'pass' || remaining <= 0) return { kind: 'pass' };
    if (rule.operation !== undefined && rule.operation !== operation) return { kind: 'pass' };
    remaining -= 1;
    return fault;
  };

  const forward = (client: Socket, head: Buffer, answerClient: boolean) => {
    if (client.destroyed || closed) return;
    const server = track(connect(Number(upstream.port), upstream.hostname));
    server.write(head);
    client.pipe(server);
    if (answerClient) server.pipe(client);
    else server.resume();
    server.on('close', () => {
      if (answerClient && !client.writableEnded) client.destroy();
    });
    client.on('close', () => server.destroy());
  };

  /** Answers the client in the proxy's stead, with its own framing, and closes the connection. */
  const answer = (
    client: Socket,
    status: string,
    headers: Readonly<Record<string, string>>,
    body: Buffer | string,
  ) => {
    const bytes = Buffer.from(body);
    const lines = Object.entries(headers)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    const head = `HTTP/1.1 ${status}\r\n${lines}content-length: ${bytes.length}\r\nconnection: close\r\n\r\n`;
    client.end(Buffer.concat([Buffer.from(head, 'latin1'), bytes]));
  };

  const handle = (client: Socket, head: Buffer) => {
    const operation = /^x-amz-target:\s*DynamoDB_\d+\.(\w+)/im.exec(head.toString('latin1'))?.[1];
    const applied = choose(operation ?? 'unknown');
    seen.push({ operation: operation ?? 'unknown', fault: applied.kind });
    switch (applied.kind) {
      case 'pass':
        return forward(client, closeAfterAnswer(head), true);
      case 'reset':
        return client.resetAndDestroy();
      case 'hang':
        return client.resume();
      case 'delay':
        client.pause();
        return after(applied.ms, () => forward(client, closeAfterAnswer(head), true));
      case 'http500':
        return answer(
          client,
          '500 Internal Server Error',
          { 'content-type': 'text/html' },
          '<html><body>500 Internal Server Error</body></html>',
        );
      case 'dynamoError':
        return answer(
          client,
          `${applied.status} Injected`,
          { 'content-type': 'application/x-amz-json-1.0' },
          JSON.stringify({
            __type: `com.amazonaws.dynamodb.v20120810#${applied.type}`,
            message: `Injected ${applied.type}`,
          }),
        );
      case 'forwardThenDrop':
        return forward(client, closeAfterAnswer(head), false);
    }
  };

  const server: Server = createServer((client) => {
    track(client);
    client.pause();
    let buffered = Buffer.alloc(0);
    const cancelHeadTimeout = after(headTimeoutMs, () => client.destroy());
    const onData = (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      const end = buffered.indexOf('\r\n\r\n');
      if (end === -1) {
        if (buffered.length > maxHeadBytes) client.destroy();
        return;
      }
      client.off('data', onData);
      client.pause();
      cancelHeadTimeout();
      handle(client, buffered);
    };
    client.on('data', onData);
    client.on('close', cancelHeadTimeout);
    client.resume();
  });

  await listen(server, 0);
  const port = (server.address() as AddressInfo).port;

  const dropConnections = async () => {
    for (const socket of sockets) socket.destroy();
    // Let the client see its pooled sockets close before it picks one for the next request.
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
  };

  return {
    endpoint: `http://127.0.0.1:${port}`,
    async inject(next, nextRule = {}) {
      fault = next;
      rule = nextRule;
      remaining = nextRule.times ?? Number.POSITIVE_INFINITY;
      await dropConnections();
    },
    async refuse() {
      if (!server.listening) return;
      const closing = new Promise<void>((resolve) => server.close(() => resolve()));
      await dropConnections();
      await closing;
    },
    async restore() {
      fault = { kind: 'pass' };
      rule = {};
      if (!server.listening) await listen(server, port);
    },
    requests: () => [...seen],
    async close() {
      closed = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      const closing = server.listening
        ? new Promise<void>((resolve) => server.close(() => resolve()))
        : Promise.resolve();
      await dropConnections();
      await closing;
    },
  };
}

/** Ask the target to close after its answer, so the client's next request opens a new connection. */
function closeAfterAnswer(head: Buffer): Buffer {
  const text = head.toString('latin1');
  const end = text.indexOf('\r\n\r\n');
  const lines = text
    .slice(0, end)
    .split('\r\n')
    .filter((line) => !/^connection\s*:/i.test(line));
  return Buffer.concat([
    Buffer.from(`${lines.join('\r\n')}\r\nconnection: close\r\n\r\n`, 'latin1'),
    head.subarray(end + 4),
  ]);
}

function listen(server: Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
}
