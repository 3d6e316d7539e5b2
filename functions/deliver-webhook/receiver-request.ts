import type { Agent, ClientRequest, IncomingMessage } from 'node:http';

// The built-ins themselves, not their ESM facades (docs/decisions/0003-built-ins-without-esm-facades.md).
const http = process.getBuiltinModule('node:http');
const https = process.getBuiltinModule('node:https');

export type ReceiverRequest = {
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  readonly agent?: Agent;
  /** From connect to the answer's status line: a receiver that never answers fails the attempt. */
  readonly timeoutMs: number;
  /** At most this much of an answer's body is read, and dropped, to keep its connection. */
  readonly maxAnswerBytes: number;
};

/**
 * POSTs one event to the subscriber and resolves with the status of its answer. The status is the
 * answer: its body, whatever it holds and however long, fails nothing. The body is read and
 * dropped so that the connection can serve the next event, up to `maxAnswerBytes` and within the
 * deadline; past either, the connection is closed instead and the status still stands. A network
 * error or no status line by the deadline rejects.
 */
export function postToReceiver(url: URL, request: ReceiverRequest): Promise<number> {
  const { headers, body, agent, timeoutMs, maxAnswerBytes } = request;
  const transport = url.protocol === 'http:' ? http : https;
  return new Promise((resolve, reject) => {
    let answer: IncomingMessage | undefined;
    const timer = setTimeout(() => {
      // Once the status is in, the deadline only cuts the body short.
      if (answer) answer.destroy();
      else outgoing.destroy(new Error(`${url.host} did not answer within ${timeoutMs} ms`));
    }, timeoutMs);
    const outgoing: ClientRequest = transport.request(
      url,
      { method: 'POST', headers, agent },
      (incoming) => {
        answer = incoming;
        const status = incoming.statusCode ?? 0;
        drain(incoming, maxAnswerBytes).then(() => {
          clearTimeout(timer);
          resolve(status);
        });
      },
    );
    outgoing.on('error', (error) => {
      if (answer) return;
      clearTimeout(timer);
      reject(error);
    });
    outgoing.end(body);
  });
}

/**
 * Reads the answer's body to its end and drops it; one over `maxBytes`, or one cut off, closes the
 * connection. Never rejects: the deadline's `destroy` ends it too.
 */
function drain(answer: IncomingMessage, maxBytes: number): Promise<void> {
  return new Promise((done) => {
    let size = 0;
    answer.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) answer.destroy();
    });
    answer.on('end', done);
    answer.on('close', done);
    answer.on('error', () => {});
  });
}
