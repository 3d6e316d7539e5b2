import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalApi } from '../../dev-server/local-api.ts';
import { clientCredentialsToken, startTestApi } from '../support/local-api-fixture.ts';

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
  let api: LocalApi;
  let token: string;

  beforeAll(async () => {
    api = await startTestApi();
    token = await clientCredentialsToken(api);
  });

  afterAll(async () => {
    await api?.close();
  });

  it("passes with a token: generated bodies valid and invalid, auth, content type, size, unknown routes and the pre-traffic hook's core cases, each status per operation in a table", async () => {
    const { stdout } = await runContract(['--url', api.url, '--token', token]);

    expect(statusColumns(stdout)).toStrictEqual(['200', '400', '401', '404', '409', '413', '415']);
    // 401: four requests with no or a bad token, and the core case without one.
    expect(stdout).toMatch(/^createPlant \(POST \/plants\)\s+\d+\s+\d+\s+5\s+\d+\s+1\s+2$/m);
    expect(stdout).toMatch(/^no route \(PUT \/plants\)\s+1$/m);
    expect(stdout).toMatch(/^PASS all \d+ answers are documented/m);
  });

  it('passes without a token, sending only what needs none', async () => {
    const { stdout } = await runContract(['--url', api.url, '--runs', '20']);

    expect(statusColumns(stdout)).toStrictEqual(['401', '404']);
    // 20 generated bodies, four requests with no or a bad token, the core case that needs none.
    expect(stdout).toMatch(/^createPlant \(POST \/plants\)\s+25$/m);
    expect(stdout).toMatch(/^PASS /m);
  });

  it('exits 2 with the usage when --url is missing', async () => {
    const failed = runContract(['--token', token]);

    await expect(failed).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/^Usage: npm run contract/),
    });
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
