import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { keepAliveAgent } from '../../../functions/connections/outbound-http.ts';
import { postToReceiver } from '../../../functions/deliver-webhook/receiver-request.ts';

const maxAnswerBytes = 64 * 1024;
const chunk = Buffer.alloc(16 * 1024, 'x');

let server: Server;
let url: URL;
let answer: (response: ServerResponse) => void;
/** Whether each answer's body was written to its end, or its connection closed first. */
let finished: Promise<boolean>[];

beforeEach(async () => {
  finished = [];
  server = createServer((request, response) => {
    request.resume();
    finished.push(
      new Promise((resolve) => {
        response.on('finish', () => resolve(true));
        response.on('close', () => resolve(response.writableFinished));
      }),
    );
    answer(response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`);
});
afterEach(() => {
  server.closeAllConnections();
  return new Promise<void>((resolve) => server.close(() => resolve()));
});

/** Writes `chunks` chunks of the body, each after the last was taken, every `everyMs`. */
function writeBody(response: ServerResponse, chunks: number, everyMs = 0) {
  let written = 0;
  const next = () => {
    if (response.destroyed) return;
    if (written === chunks) {
      response.end();
      return;
    }
    written += 1;
    const flushed = response.write(chunk);
    if (everyMs > 0) setTimeout(next, everyMs);
    else if (flushed) setImmediate(next);
    else response.once('drain', next);
  };
  next();
}

const post = (
  timeoutMs = 2000,
  agent = undefined as ReturnType<typeof keepAliveAgent> | undefined,
) => postToReceiver(url, { headers: {}, body: '{}', agent, timeoutMs, maxAnswerBytes });

describe('postToReceiver', () => {
  it('acknowledges a 2xx whose body is over the limit, and reads no more of it (red team L2)', async () => {
    answer = (response) => {
      response.writeHead(200);
      writeBody(response, 1024); // 16 MiB
    };

    await expect(post()).resolves.toBe(200);
    expect(await finished[0]).toBe(false);
  });

  it('acknowledges a 2xx whose body is still coming at the deadline', async () => {
    answer = (response) => {
      response.writeHead(202).flushHeaders();
      writeBody(response, 100, 50);
    };

    await expect(post(300)).resolves.toBe(202);
  });

  it('reads a body within the limit to its end, and keeps the connection for the next event', async () => {
    const agent = keepAliveAgent(url, 1);
    let connections = 0;
    server.on('connection', () => {
      connections += 1;
    });
    answer = (response) => {
      response.writeHead(200);
      writeBody(response, 2);
    };

    await expect(post(2000, agent)).resolves.toBe(200);
    await expect(post(2000, agent)).resolves.toBe(200);
    expect(await Promise.all(finished)).toStrictEqual([true, true]);
    expect(connections).toBe(1);
    agent.destroy();
  });

  it('resolves with a status other than 2xx, whatever its body', async () => {
    answer = (response) => {
      response.writeHead(503);
      writeBody(response, 1024);
    };

    await expect(post()).resolves.toBe(503);
  });

  it('rejects when no status line comes by the deadline', async () => {
    answer = () => undefined;

    await expect(post(200)).rejects.toThrow(/did not answer within 200 ms/);
  });

  it('rejects when the connection is reset before an answer', async () => {
    answer = (response) => response.socket?.destroy();

    await expect(post()).rejects.toThrow(/socket hang up|ECONNRESET/);
  });
});
