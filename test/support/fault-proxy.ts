import http from 'node:http';
import { type AddressInfo, connect, createServer, type Server, type Socket } from 'node:net';
import { crc32 } from 'node:zlib';

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

/**
 * How the proxy passes on a failed condition of a PutItem that asked for
 * `ReturnValuesOnConditionCheckFailure: ALL_OLD`:
 * - `dynalite`: as dynalite itself answers it, without the stored item (taken out of the answer);
 * - `dynamodb`: as DynamoDB documents it, with the stored item as `Item` in the error body, which
 *   the local DynamoDB gives (dev-server/old-item-on-condition-failure.ts).
 */
export type ConditionFailureAnswer = 'dynalite' | 'dynamodb';

export type FaultProxyOptions = {
  /** @default 'dynalite' */
  readonly conditionFailure?: ConditionFailureAnswer;
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
 * ended by `close`. With `conditionFailure: 'dynalite'` it answers a failed condition without the
 * stored item, as dynalite itself does (see `forwardWithoutOldItem`).
 */
export async function startFaultProxy(
  target: string,
  options: FaultProxyOptions = {},
): Promise<FaultProxy> {
  const upstream = new URL(target);
  const withoutOldItems = (options.conditionFailure ?? 'dynalite') === 'dynalite';
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

  /**
   * The local DynamoDB answers a failed condition with the stored item as `Item` when the request
   * asked for ALL_OLD, as DynamoDB does; dynalite itself leaves it out, and so does this, taking
   * it out of the error body, with `content-length` and `x-amz-crc32` to match.
   */
  const forwardWithoutOldItem = async (client: Socket, head: Buffer) => {
    try {
      const request = await readRequest(client, head);
      const reply = await send(upstream, request);
      let body = reply.body;
      if (reply.status === 400) {
        const { Item: _old, ...error } = JSON.parse(body.toString('utf8')) as {
          __type?: string;
          Item?: unknown;
        };
        if (error.__type?.endsWith('#ConditionalCheckFailedException')) {
          body = Buffer.from(JSON.stringify(error), 'utf8');
        }
      }
      if (client.destroyed || closed) return;
      const headers = Object.entries(reply.headers).filter(
        ([name]) => !answerFramingHeaders.has(name),
      );
      answer(
        client,
        `${reply.status} ${reply.statusText}`,
        { ...Object.fromEntries(headers), 'x-amz-crc32': String(crc32(body)) },
        body,
      );
    } catch {
      client.destroy();
    }
  };

  const handle = (client: Socket, head: Buffer) => {
    const operation = /^x-amz-target:\s*DynamoDB_\d+\.(\w+)/im.exec(head.toString('latin1'))?.[1];
    const applied = choose(operation ?? 'unknown');
    seen.push({ operation: operation ?? 'unknown', fault: applied.kind });
    switch (applied.kind) {
      case 'pass':
        if (withoutOldItems && operation === 'PutItem') return forwardWithoutOldItem(client, head);
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

/** The headers that frame an answer; `answer` writes its own when the proxy changes the body. */
const answerFramingHeaders = new Set([
  'content-length',
  'x-amz-crc32',
  'connection',
  'transfer-encoding',
  'keep-alive',
]);

type RawRequest = {
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body: Buffer;
};

/** The whole request whose head has been read: its method, path, headers and `content-length` body. */
function readRequest(client: Socket, head: Buffer): Promise<RawRequest> {
  const text = head.toString('latin1');
  const end = text.indexOf('\r\n\r\n');
  const [requestLine = '', ...headerLines] = text.slice(0, end).split('\r\n');
  const [method = 'POST', path = '/'] = requestLine.split(' ');
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).trim().toLowerCase();
    if (name !== 'connection') headers[name] = line.slice(colon + 1).trim();
  }
  const length = Number(headers['content-length'] ?? 0);
  let body = head.subarray(end + 4);
  return new Promise((resolve, reject) => {
    const done = () => {
      client.off('data', onData);
      client.pause();
      resolve({ method, path, headers, body: body.subarray(0, length) });
    };
    const onData = (chunk: Buffer) => {
      body = Buffer.concat([body, chunk]);
      if (body.length >= length) done();
    };
    if (body.length >= length) return done();
    client.on('data', onData);
    client.once('close', () => reject(new Error('the client left before its request was read')));
    client.resume();
  });
}

type RawAnswer = {
  readonly status: number;
  readonly statusText: string;
  readonly headers: Record<string, string>;
  readonly body: Buffer;
};

function send(upstream: URL, request: RawRequest): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const outgoing = http.request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: request.method,
        path: request.path,
        headers: request.headers,
        agent: false,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 502,
            statusText: response.statusMessage ?? '',
            headers: Object.fromEntries(
              Object.entries(response.headers).map(([name, value]) => [name, String(value)]),
            ),
            body: Buffer.concat(chunks),
          }),
        );
      },
    );
    outgoing.on('error', reject);
    outgoing.end(request.body);
  });
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
