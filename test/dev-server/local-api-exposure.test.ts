import { request } from 'node:http';
import { connect, createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { LocalConfigError } from '../../dev-server/config.ts';
import { type LocalApi, startLocalApi } from '../../dev-server/local-api.ts';
import {
  createPlant,
  everyHandler,
  startTestApi,
  tokenRequest,
  useTestApi,
} from '../support/local-api-fixture.ts';

interface RawAnswer {
  readonly status: number;
  readonly body: string;
}

/** A request with a `Host` of our choosing, which fetch does not allow. */
function rawRequest(
  url: string,
  init: { method?: string; host: string; headers?: Record<string, string>; body?: string },
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: init.method ?? 'GET', headers: { ...init.headers, host: init.host } },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end(init.body);
  });
}

describe('startLocalApi answers only to its own host names (DNS rebinding)', () => {
  let api: LocalApi;
  let port: number;
  const logged: string[] = [];

  // No request here reaches a function: a stand-in for each is quicker to start.
  beforeAll(async () => {
    api = await startTestApi({
      handlers: everyHandler('misbehaving-handler.ts'),
      log: (line) => logged.push(line),
    });
    port = Number(new URL(api.url).port);
  });

  afterAll(async () => {
    await api?.close();
  });

  it.each(['127.0.0.1', 'localhost', '[::1]', 'LOCALHOST'])(
    'serves Host %s on its port',
    async (name) => {
      const answer = await rawRequest(`${api.url}/oauth2/token`, {
        ...tokenRequest,
        host: `${name}:${port}`,
      });

      expect(answer.status).toBe(200);
      expect(answer.body).toContain('access_token');
    },
  );

  it('logs one line per request with the path only, never the query string, which may carry a token', async () => {
    const response = await fetch(`${api.url}/nowhere?access_token=eyJ.secret.sig&x=1`);

    expect(response.status).toBe(404);
    const line = /^\d\d:\d\d:\d\d GET \/nowhere 404 \d+ms$/;
    await vi.waitFor(() => expect(logged).toContainEqual(expect.stringMatching(line)));
    expect(logged.join('\n')).not.toContain('secret');
  });

  it.each([
    ['GET', '/docs'],
    ['POST', '/oauth2/token'],
    ['GET', '/.well-known/jwks.json'],
    ['POST', '/plants'],
  ])('answers %s %s for another name with 421 and no token', async (method, path) => {
    const answers = await Promise.all(
      ['rebind.attacker.example', `rebind.attacker.example:${port}`, '127.0.0.1:1'].map((host) =>
        rawRequest(`${api.url}${path}`, { ...tokenRequest, method, host }),
      ),
    );

    for (const answer of answers) {
      expect(answer.status).toBe(421);
      expect(JSON.parse(answer.body)).toEqual({ message: 'Misdirected Request' });
    }
  });
});

describe('startLocalApi on an address other machines can reach', () => {
  it('refuses to start with the published default client secret, naming PLANTS_CLIENT_SECRET', async () => {
    const started = startLocalApi({ host: '0.0.0.0', port: 0, log: () => {} });

    await expect(started).rejects.toThrow(LocalConfigError);
    await expect(started).rejects.toThrow(/HOST 0\.0\.0\.0 .*PLANTS_CLIENT_SECRET/);
  });

  it('starts with a secret of its own, and its docs page holds no token', async () => {
    const api = await startTestApi({
      host: '0.0.0.0',
      handlers: everyHandler('misbehaving-handler.ts'),
    });

    try {
      const response = await fetch(`${api.url}/docs`);
      const page = await response.text();

      expect(response.status).toBe(200);
      expect(page).toContain('SwaggerUIBundle');
      expect(page).not.toContain('preauthorizeApiKey');
      expect(page).not.toMatch(/eyJ/);
    } finally {
      await api.close();
    }
  });
});

/** A port that was free a moment ago, so a test can call it before the server says where it is. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** The first answer from `url`, retrying while nothing listens yet. */
async function firstAnswer(url: string, init: RequestInit): Promise<Response> {
  for (;;) {
    try {
      return await fetch(url, init);
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
}

// Side by side: each waits on its functions' slow init.
describe.concurrent('startLocalApi while the function is still starting (warm-up)', () => {
  it('holds requests from the first accepted connection and answers every route, as API Gateway does on a cold start', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const starting = startTestApi({
      port,
      handlers: everyHandler('slow-init-handler.ts'),
    });

    // The port opens before the function's 1.5 s init, so these connect during the warm-up.
    const [jwks, token, plants] = await Promise.all([
      firstAnswer(`${url}/.well-known/jwks.json`, {}),
      firstAnswer(`${url}/oauth2/token`, tokenRequest),
      firstAnswer(`${url}/plants`, { method: 'POST', body: '{}' }),
    ]);
    const api = await starting;

    try {
      expect([jwks.status, token.status, plants.status]).toEqual([200, 200, 201]);
      expect(await plants.text()).toBe('created');
    } finally {
      await api.close();
    }
  }, 20_000);

  it('answers 503 once a request has been held for the warm-up bound', async () => {
    const port = await freePort();
    const starting = startTestApi({
      port,
      handlers: everyHandler('slow-init-handler.ts'),
      limits: { warmUpMs: 200 },
    });

    // The function's init takes 1.5 s, far past the 200 ms bound.
    const held = await firstAnswer(`http://127.0.0.1:${port}/plants`, { method: 'POST' });
    const api = await starting;

    try {
      expect(held.status).toBe(503);
      expect(await held.json()).toEqual({ message: 'Service Unavailable' });
    } finally {
      await api.close();
    }
  }, 20_000);
});

// The budgets are the gateway's: a stand-in function answers whatever reaches it with a 201.
describe('startLocalApi under many slow uploads', () => {
  const budget = 64 * 1024;
  const local = useTestApi({
    handlers: everyHandler('misbehaving-handler.ts'),
    limits: {
      bodyBytesInFlight: budget,
      unvouchedBodyBytesInFlight: budget,
      requestTimeoutMs: 1_000,
    },
  });

  /** An upload that sends `sent` of its `length` bytes and then stalls; with `bearer`, a token. */
  function stalledUpload(length: number, sent: number, bearer?: string) {
    const answer = new Promise<number>((resolve, reject) => {
      const req = request(`${local.api.url}/plants`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'content-length': length,
          ...(bearer === undefined ? {} : { authorization: `Bearer ${bearer}` }),
        },
      });
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.write(Buffer.alloc(sent, 0x20));
      stall.push(() => req.destroy());
    });
    answer.catch(() => undefined);
    return answer;
  }
  const stall: (() => void)[] = [];

  it('answers 429 once the bodies held in memory reach the bound, and takes bodies again once they are freed', async () => {
    const plant = `{"id":7,"name":"Fern","padding":"${'x'.repeat(10_000)}"}`;
    expect((await createPlant(local.api, local.token, plant)).status).toBe(201);
    const stalled = stalledUpload(budget, budget - 1_000, local.token);
    // Server and test share one event loop: a short wait lets the server read the stalled bytes.
    await new Promise((resolve) => setTimeout(resolve, 200));

    const refused = await createPlant(local.api, local.token, plant);
    const stalledStatus = await Promise.race([stalled, 'still uploading']);
    for (const stop of stall.splice(0)) stop();
    await new Promise((resolve) => setTimeout(resolve, 100));
    const again = await createPlant(local.api, local.token, plant);

    expect(stalledStatus).toBe('still uploading');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(await refused.json()).toEqual({ message: 'Too Many Requests' });
    expect(again.status).toBe(201);
  });

  it('keeps uploads without credentials to a share of their own: four stalled ones deny no authorized create or token request', async () => {
    const share = budget / 4;
    const stalled = [0, 1, 2, 3].map(() => stalledUpload(share, share - 100));
    await new Promise((resolve) => setTimeout(resolve, 200));

    const authorized = await createPlant(
      local.api,
      local.token,
      `{"id":9,"name":"Moss","padding":"${'x'.repeat(10_000)}"}`,
    );
    const tokenAnswer = await fetch(`${local.api.url}/oauth2/token`, tokenRequest);
    const anonymous = await createPlant(
      local.api,
      undefined,
      `{"padding":"${'x'.repeat(10_000)}"}`,
    );
    const stalledStatus = await Promise.race([...stalled, 'still uploading']);
    for (const stop of stall.splice(0)) stop();
    await new Promise((resolve) => setTimeout(resolve, 100));
    const anonymousLater = await createPlant(local.api, undefined, '{"id":10,"name":"Fern"}');

    expect(stalledStatus).toBe('still uploading');
    expect(authorized.status).toBe(201);
    expect(tokenAnswer.status).toBe(200);
    expect(anonymous.status).toBe(429);
    expect(anonymousLater.status).toBe(201);
  });

  it('times out a body that stops coming with 408 and gives its bytes back', async () => {
    const status = await stalledUpload(budget, budget - 1_000);
    const next = await createPlant(
      local.api,
      local.token,
      `{"id":8,"name":"Ivy","padding":"${'x'.repeat(10_000)}"}`,
    );

    expect(status).toBe(408);
    expect(next.status).toBe(201);
  }, 10_000);
});

describe('startLocalApi while it closes', () => {
  it('finishes a request in flight with Connection: close, and serves nothing sent after shutdown began on that connection', async () => {
    const api = await startTestApi({
      handlers: everyHandler('misbehaving-handler.ts'),
    });
    const { port } = new URL(api.url);
    const create = (behave: string) =>
      `POST /plants HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nx-behave: ${behave}\r\n` +
      'content-type: application/json\r\ncontent-length: 2\r\n\r\n{}';
    const socket = connect(Number(port), '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    let answers = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => {
      answers += chunk;
    });

    // The function takes 300 ms: the first request is in flight when shutdown begins.
    socket.write(create('slow'));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const closing = api.close();
    socket.write(create('echo'));
    await new Promise((resolve) => socket.once('close', resolve));
    await closing;

    const statusLines = answers.match(/^HTTP\/1\.1 .*$/gm) ?? [];
    expect(statusLines).toEqual(['HTTP/1.1 201 Created']);
    expect(answers).toMatch(/^connection: close\r$/im);
  });

  it('still checks the Host of a request whose headers complete after close() has begun', async () => {
    // A connection with a request under way, its headers not yet complete.
    const api = await startTestApi({ handlers: everyHandler('misbehaving-handler.ts') });
    const { port } = new URL(api.url);
    const socket = connect(Number(port), '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(`GET /.well-known/jwks.json HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    let answer = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => {
      answer += chunk;
    });

    // The server stops listening (its address is gone), then the headers complete.
    const closing = api.close();
    socket.end('\r\n');
    await new Promise((resolve) => socket.once('close', resolve));
    await closing;

    // Answered like any other request, not a crash of the server process.
    expect(answer.split('\r\n')[0]).toBe('HTTP/1.1 200 OK');
  });
});
