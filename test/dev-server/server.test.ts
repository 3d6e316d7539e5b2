import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalApi } from '../../dev-server/local-api.ts';
import { everyHandler, startTestApi } from '../support/local-api-fixture.ts';

let api: LocalApi;
let port: number;

beforeAll(async () => {
  api = await startTestApi({
    handlers: everyHandler('misbehaving-handler.ts'),
    limits: { requestTimeoutMs: 500, maxConnections: 4 },
  });
  port = Number(new URL(api.url).port);
});

afterAll(async () => {
  await api?.close();
});

function open(): Promise<Socket> {
  const socket = connect(port, '127.0.0.1');
  return new Promise((resolve, reject) => {
    socket.once('connect', () => resolve(socket)).once('error', reject);
  });
}

/** Sends `bytes` on a connection of its own and reads until the server closes it. */
async function exchange(bytes: string): Promise<{ head: string; body: string }> {
  const socket = await open();
  let answer = '';
  socket.setEncoding('utf8').on('data', (chunk: string) => {
    answer += chunk;
  });
  socket.on('error', () => {});
  socket.write(bytes);
  await new Promise((resolve) => socket.once('close', resolve));
  const split = answer.indexOf('\r\n\r\n');
  return { head: answer.slice(0, split), body: answer.slice(split + 4) };
}

describe("the local server's own answers, in the gateway's shape", () => {
  it.each([
    ['a request line it cannot parse', 400, 'Bad Request', 'BAD\r\n\r\n'],
    [
      'headers past 16 KiB',
      431,
      'Request Header Fields Too Large',
      `GET /plants HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    ],
    ['headers that stop coming', 408, 'Request Timeout', 'GET /plants HTTP/1.1\r\nHost: 127.0.0'],
  ])('answers %s with %i {"message":"%s"} and closes', async (_name, status, message, bytes) => {
    const { head, body } = await exchange(bytes);

    expect(head.split('\r\n')[0]).toBe(`HTTP/1.1 ${status} ${message}`);
    expect(head).toMatch(/^content-type: application\/json$/im);
    expect(head).toMatch(/^connection: close$/im);
    expect(JSON.parse(body)).toEqual({ message });
  });

  it('answers an Expect it does not know with 417 {"message":"Expectation Failed"}', async () => {
    const { head, body } = await exchange(
      `POST /plants HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nExpect: 200-ok\r\n` +
        'content-type: application/json\r\ncontent-length: 2\r\n\r\n{}',
    );

    expect(head.split('\r\n')[0]).toBe('HTTP/1.1 417 Expectation Failed');
    expect(JSON.parse(body)).toEqual({ message: 'Expectation Failed' });
  });
});

describe('the local server and an absolute-form request target (RFC 9112 3.2.2)', () => {
  it('serves POST http://host/plants as POST /plants, with the target naming the host', async () => {
    const { head, body } = await exchange(
      `POST http://127.0.0.1:${port}/plants?b=2 HTTP/1.1\r\nHost: ignored.example\r\n` +
        'x-behave: echo\r\ncontent-type: application/json\r\ncontent-length: 2\r\n' +
        'connection: close\r\n\r\n{}',
    );

    expect(head.split('\r\n')[0]).toBe('HTTP/1.1 201 Created');
    expect(JSON.parse(body)).toMatchObject({
      routeKey: 'POST /plants',
      rawPath: '/plants',
      rawQueryString: 'b=2',
      headers: { host: `127.0.0.1:${port}` },
      requestContext: { domainName: '127.0.0.1' },
    });
  });

  it('checks the host the target names, not the Host header (DNS rebinding)', async () => {
    const { head } = await exchange(
      `POST http://rebind.attacker.example:${port}/plants HTTP/1.1\r\n` +
        `Host: 127.0.0.1:${port}\r\ncontent-length: 0\r\n\r\n`,
    );

    expect(head.split('\r\n')[0]).toBe('HTTP/1.1 421 Misdirected Request');
  });
});

describe('the local server under many connections', () => {
  it('closes a connection past maxConnections as it arrives, and takes new ones once some close', async () => {
    const held = await Promise.all([open(), open(), open(), open()]);
    await new Promise((resolve) => setTimeout(resolve, 50));

    const extra = await open();
    const closedAt = await new Promise<string>((resolve) => {
      extra.on('error', () => {}).once('close', () => resolve('closed'));
      setTimeout(() => resolve('still open'), 1_000);
    });
    for (const socket of held) socket.destroy();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const later = await fetch(`${api.url}/plants`, { headers: { 'x-behave': 'echo' } });

    expect(closedAt).toBe('closed');
    expect(later.status).toBe(201);
  });
});
