import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApi } from '../support/local-api-fixture.ts';

const contractScript = fileURLToPath(new URL('../../scripts/contract.ts', import.meta.url));
const run = promisify(execFile);

function runContract(args: string[]) {
  // process.execPath is the Node 24 that runs vitest, which strips the script's types itself.
  return run(process.execPath, [contractScript, ...args]);
}

/** The table's header line: `operation` and the statuses seen, in order. */
function statusColumns(stdout: string): string[] {
  return (/^operation\s+(.*)$/m.exec(stdout)?.[1] ?? '').trim().split(/\s+/);
}

describe('contract check (npm run contract) against the local API', () => {
  const local = useTestApi();

  it("passes with a token: generated bodies and parameters valid and invalid, auth, content type, size, unknown routes, a list walk, cursors, deletes and the pre-traffic hook's core cases, each status per operation in a table", async () => {
    const { stdout } = await runContract(['--url', local.api.url, '--token', local.token]);

    expect(statusColumns(stdout)).toStrictEqual([
      '200',
      '204',
      '400',
      '401',
      '404',
      '409',
      '413',
      '415',
    ]);
    // 401: four requests with no or a bad token, and the core case without one.
    expect(stdout).toMatch(/^createPlant \(POST \/plants\)\s+\d+\s+\d+\s+5\s+\d+\s+1\s+2$/m);
    // 400s and 401s beside the successes: no 404, no 409, no 415 for a list or a delete.
    expect(stdout).toMatch(/^listPlants \(GET \/plants\)\s+\d+\s+\d+\s+4$/m);
    expect(stdout).toMatch(/^deletePlant \(DELETE \/plants\/\{id\}\)\s+\d+\s+\d+\s+4$/m);
    for (const route of ['PUT /plants', 'PATCH /plants', 'DELETE /plants', 'GET /plants/1']) {
      expect(stdout).toMatch(new RegExp(`^no route \\(${route}\\)\\s+1$`, 'm'));
    }
    const walk = /^List walk: (\d+) pages, (\d+) plants, each of the (\d+) this run stored/m.exec(
      stdout,
    );
    expect(Number(walk?.[1])).toBeGreaterThan(1);
    expect(Number(walk?.[3])).toBeGreaterThan(10);
    expect(stdout).toMatch(/^PASS all \d+ answers are documented/m);
  });

  it('passes without a token, sending only what needs none', async () => {
    const { stdout } = await runContract(['--url', local.api.url, '--runs', '20']);

    expect(statusColumns(stdout)).toStrictEqual(['401', '404']);
    // 20 generated requests and four with no or a bad token; for create also the core case.
    expect(stdout).toMatch(/^createPlant \(POST \/plants\)\s+25$/m);
    expect(stdout).toMatch(/^listPlants \(GET \/plants\)\s+24$/m);
    expect(stdout).toMatch(/^deletePlant \(DELETE \/plants\/\{id\}\)\s+24$/m);
    expect(stdout).not.toMatch(/^List walk/m);
    expect(stdout).toMatch(/^PASS /m);
  });

  it('exits 2 with the usage when --url is missing', async () => {
    const failed = runContract(['--token', local.token]);

    await expect(failed).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/^Usage: npm run contract/),
    });
  });
});

describe('contract check (npm run contract) against a list that loops and leaves plants out', () => {
  let server: Server;

  beforeAll(async () => {
    // Every answer in the spec's shapes: creates echo the name, deletes are 204, and every page
    // is empty with a next link to the same page.
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const headers = { 'content-type': 'application/json', 'cache-control': 'no-store' };
        if (req.method === 'DELETE')
          return res.writeHead(204, { 'cache-control': 'no-store' }).end();
        if (req.method === 'GET') {
          const link = '</plants?limit=10&cursor=again>; rel="next"';
          return res.writeHead(200, { ...headers, link }).end('[]');
        }
        let name = 'Fern';
        try {
          name = JSON.parse(Buffer.concat(chunks).toString()).name ?? name;
        } catch {
          // A body that is not JSON gets the default name.
        }
        res.writeHead(200, headers).end(JSON.stringify({ name }));
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
  });

  afterAll(async () => {
    server?.close();
  });

  it('fails on the walk, naming the loop and each stored plant it does not list', async () => {
    const { port } = server.address() as AddressInfo;

    const failed = runContract([
      '--url',
      `http://127.0.0.1:${port}`,
      '--token',
      'x',
      '--runs',
      '10',
    ]);

    const { code, stdout } = await failed.then(
      () => ({ code: 0, stdout: '' }),
      (error: { code: number; stdout: string }) => error,
    );
    expect(code).toBe(1);
    expect(stdout).toMatch(/^FAIL GET \/plants\?limit=10&cursor=again \(list walk, page 2\)$/m);
    expect(stdout).toContain(
      '  - the next link /plants?limit=10&cursor=again was followed before: the walk loops',
    );
    expect(stdout).toMatch(/^FAIL GET \/plants\?limit=10 \(list walk\)$/m);
    expect(stdout).toMatch(/^ {2}- plant -?\d+, stored before the walk, is listed 0 times$/m);
  });
});

describe('contract check (npm run contract) against a server that breaks the spec', () => {
  let server: Server;
  let answer: { status: number; headers: Record<string, string>; body: string };

  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(answer.status, answer.headers).end(answer.body));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
  });

  afterAll(async () => {
    server?.close();
  });

  const json = { 'content-type': 'application/json', 'cache-control': 'no-store' };
  it.each([
    [
      'a status the spec does not document',
      { status: 418, headers: json, body: '{"error":418,"message":"I am a teapot"}' },
      /status 418 is not documented for createPlant/,
    ],
    [
      'a body off the schema',
      { status: 200, headers: json, body: '{"name":42}' },
      /body #\/name fails type \(\/components\/schemas\/Plant\/properties\/name\/type\)/,
    ],
    [
      'a 401 without its challenge',
      { status: 401, headers: json, body: '{"error":401,"message":"No token"}' },
      /header WWW-Authenticate is required but absent/,
    ],
  ])('fails on %s, naming the request and the answer', async (_case, wrong, violation) => {
    answer = wrong;
    const { port } = server.address() as AddressInfo;

    const failed = runContract([
      '--url',
      `http://127.0.0.1:${port}`,
      '--token',
      'x',
      '--runs',
      '10',
    ]);

    const { code, stdout } = await failed.then(
      () => ({ code: 0, stdout: '' }),
      (error: { code: number; stdout: string }) => error,
    );
    expect(code).toBe(1);
    expect(stdout).toMatch(/^FAIL POST \/plants \(no token\)$/m);
    expect(stdout).toMatch(
      /^ {2}request: content-type application\/json, without Authorization, body "\{.*\}" \(\d+ bytes\)$/m,
    );
    expect(stdout).toContain(
      `  answer:  ${wrong.status}, content-type application/json, body ${JSON.stringify(wrong.body)}`,
    );
    expect(stdout).toMatch(violation);
    expect(stdout).toMatch(
      /^FAIL POST \/plants \(core case: a create without a token gets 401 with the Bearer challenge\)$/m,
    );
    expect(stdout).toMatch(/^FAIL \d+ of \d+ requests$/m);
  });
});
