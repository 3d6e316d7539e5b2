import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseExactJson } from '../../clients/plant-store-client.ts';
import { checkPlantTag } from '../../functions/checks/check.ts';
import { checkStepsOf } from '../../functions/checks/runner.ts';
import { operation as createPlant } from '../../functions/create-plant/operation.ts';
import { checksOf, type Operation, operations, routeKey } from '../../functions/operations.ts';
import { sampleHttpRequest } from '../../scripts/check-http.ts';
import {
  type ContractOptions,
  contractCommand,
  defaults,
  sampleCases,
} from '../../scripts/contract.ts';
import { withBundledHandlers } from '../support/bundled-handlers.ts';
import { useTestApi } from '../support/local-api-fixture.ts';
import { otherMethodRoutes } from '../support/unmatched-routes.ts';

const contractScript = fileURLToPath(new URL('../../scripts/contract.ts', import.meta.url));

/**
 * `npm run contract` in a process of its own: what only a process shows, its command line. The
 * other runs call `contractCommand`, all the command does once its options are read.
 */
function runCommand(args: string[]) {
  // process.execPath is the Node 24 that runs vitest, which strips the script's types itself.
  return promisify(execFile)(process.execPath, [contractScript, ...args]);
}

/** The command with these options, the rest its defaults: its exit code and what it prints. */
async function contract(
  options: Partial<ContractOptions> & { url: string },
): Promise<{ code: number; stdout: string }> {
  const printed: string[] = [];
  const code = await contractCommand({ ...defaults, ...options }, (text) => printed.push(text));
  return { code, stdout: `${printed.join('\n')}\n` };
}

/** The table's header line: `operation` and the statuses seen, in order. */
function statusColumns(stdout: string): string[] {
  return (/^operation\s+(.*)$/m.exec(stdout)?.[1] ?? '').trim().split(/\s+/);
}

/** The status table: each row (`createPlant (POST /plants)`) and the count of each status in it. */
function statusTable(stdout: string): Map<string, Map<number, number>> {
  const [header = '', ...lines] = stdout.slice(stdout.search(/^operation /m)).split('\n');
  const rows = lines.slice(0, lines.indexOf(''));
  const columns = statusColumns(header).map(Number);
  // Each row's name ends with its route in brackets; the cells are five characters wide.
  const width = Math.max(...rows.map((row) => row.indexOf(')') + 1));
  return new Map(
    rows.map((row) => {
      const cells = columns.map((status, index) => {
        const cell = row.slice(width + 2 + 5 * index, width + 7 + 5 * index).trim();
        return [status, Number(cell)] as const;
      });
      return [row.slice(0, width).trim(), new Map(cells.filter(([, count]) => count > 0))];
    }),
  );
}

/** The counts of the row of this operation's route, whatever the spec names the operation. */
function rowOf(table: Map<string, Map<number, number>>, operation: Operation) {
  const suffix = ` (${routeKey(operation)})`;
  const rows = [...table].filter(([name]) => name.endsWith(suffix) && !name.startsWith('no route'));
  expect(rows.map(([name]) => name)).toHaveLength(1);
  return Object.fromEntries(rows[0]?.[1] ?? []);
}

/**
 * Five generated requests per operation show every kind of case; the default 120 is for a check
 * of a deployed API.
 */
const runsWithToken = 5;
/** Without a token every request is refused alike: two show bodies and parameters valid and not. */
const runsWithoutToken = 2;
/** Pages of one plant: the walk over the few plants a short run stores takes several. */
const walkLimit = 1;
const everyOperation = operations.map((operation) => [operation.name, operation] as const);

describe('contract check (npm run contract) against the local API', () => {
  const local = useTestApi(withBundledHandlers);
  const runs: {
    withToken?: Promise<{ code: number; stdout: string }>;
    withoutToken?: Promise<string>;
  } = {};

  // Both at once, against the same API: each spends much of its time waiting for answers.
  beforeAll(() => {
    runs.withToken = contract({
      url: local.api.url,
      token: local.token,
      runs: runsWithToken,
      walkLimit,
    });
    runs.withoutToken = contract({ url: local.api.url, runs: runsWithoutToken }).then(
      (run) => run.stdout,
    );
    for (const run of Object.values(runs)) run.catch(() => undefined);
  });

  it("passes with a token and exits 0: generated bodies and parameters valid and invalid, auth, content type, size, unknown routes, a list walk, cursors, deletes, samples and every operation's checks, each status per operation in a table", async () => {
    const { code, stdout } = (await runs.withToken) ?? { code: undefined, stdout: '' };

    // Every status an operation answers of its own shows, bar 503 (the store never fails here).
    const own = new Set(operations.flatMap((operation) => [...operation.statuses, 401]));
    expect(statusColumns(stdout)).toStrictEqual(
      [...own, 404]
        .sort((a, b) => a - b)
        .filter((s, i, all) => all.indexOf(s) === i)
        .map(String),
    );
    expect(rowOf(statusTable(stdout), createPlant)).toMatchObject({ 409: expect.any(Number) });
    const walk = /^List walk: (\d+) pages, (\d+) plants, each of the (\d+) this run stored/m.exec(
      stdout,
    );
    expect(Number(walk?.[1])).toBeGreaterThan(1);
    expect(Number(walk?.[3])).toBeGreaterThanOrEqual(walkLimit);
    expect(stdout).toMatch(/^PASS all \d+ answers are documented/m);
    expect(code).toBe(0);
  });

  it.each(everyOperation)(
    'sends %s, with a token, its sample and checks, and gets 401 to four requests without a valid token and to its check without one',
    async (_name, operation) => {
      const row = rowOf(statusTable((await runs.withToken)?.stdout ?? ''), operation);
      const { sample } = checksOf(operation);
      const { body } = sample.request('1');

      expect(row[401]).toBe(5);
      expect(row[sample.status]).toBeGreaterThan(0);
      // Only a route the spec does not list gets the HTTP API's 404, bar an operation's own.
      if (!operation.statuses.includes(404)) expect(row[404]).toBeUndefined();
      // With a body: text/plain and no content type (415) and one byte too many (413).
      expect([row[413], row[415]]).toStrictEqual(
        body === undefined ? [undefined, undefined] : [1, 2],
      );
    },
  );

  it.each(everyOperation)(
    'sends %s its sample about a fresh id no plant has, expecting the status it declares',
    (_name, operation) => {
      const cases = sampleCases('t');
      // The id ends the path, or else is in the body; a list's sample names none.
      const ids = cases.map(
        ({ path, body }) => /\/(-?\d+)$/.exec(path)?.[1] ?? plantOf(String(body))?.id,
      );
      const index = operations.indexOf(operation);

      expect(cases[index]).toMatchObject({
        ...sampleHttpRequest(operation, ids[index] ?? '', 't'),
        expect: [checksOf(operation).sample.status],
      });
      // An id of its own in each run: none the other operations' samples are about.
      const named = ids.filter((each) => each !== undefined);
      expect(new Set(named).size).toBe(named.length);
    },
  );

  it("counts each route the spec does not list once, each as the HTTP API's 404", async () => {
    const table = statusTable((await runs.withToken)?.stdout ?? '');
    const unlisted = [
      ...otherMethodRoutes(),
      { method: 'GET', path: '/contract-check/no-such-route' },
    ];

    for (const { method, path } of unlisted) {
      expect(Object.fromEntries(table.get(`no route (${method} ${path})`) ?? [])).toStrictEqual({
        404: 1,
      });
    }
    expect([...table.keys()].filter((name) => name.startsWith('no route'))).toHaveLength(
      unlisted.length,
    );
  });

  it.each(everyOperation)(
    `sends %s, without a token, only what needs none: ${runsWithoutToken} generated requests, four more and its core case, each a 401`,
    async (_name, operation) => {
      const stdout = (await runs.withoutToken) ?? '';

      expect(statusColumns(stdout)).toStrictEqual(['401', '404']);
      expect(rowOf(statusTable(stdout), operation)).toStrictEqual({ 401: runsWithoutToken + 5 });
      expect(stdout).not.toMatch(/^List walk/m);
      expect(stdout).toMatch(/^PASS /m);
    },
  );

  it('exits 2 with the usage when --url is missing', async () => {
    const failed = runCommand(['--token', local.token]);

    await expect(failed).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/^Usage: npm run contract/),
    });
  });
});

/** A stand-in API on a free loopback port, closed once the test has finished. */
async function fakeApi(
  onTestFinished: (fn: () => void) => void,
  answer: (req: IncomingMessage, body: string, res: ServerResponse) => void,
): Promise<string> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => answer(req, Buffer.concat(chunks).toString(), res));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  onTestFinished(() => server.close());
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** The id (as its decimal text) and name of a JSON object body with an integer id. */
function plantOf(body: string): { id: string; name: unknown } | undefined {
  try {
    const { id, name } = parseExactJson(body) as { id?: unknown; name?: unknown };
    return Number.isInteger(id) || typeof id === 'bigint' ? { id: String(id), name } : undefined;
  } catch {
    return undefined;
  }
}

/** One generated request per operation: it stores the plant a list walk looks for. */
const failingRuns = 1;

/** The lines under a report's `FAIL <request>` line: the request, the answer and each violation. */
function failureOf(stdout: string, request: string): string[] {
  const lines = stdout.split('\n');
  const at = lines.indexOf(`FAIL ${request}`);
  if (at === -1) return [];
  const end = lines.findIndex((line, index) => index > at && !line.startsWith('  '));
  return lines.slice(at + 1, end === -1 ? undefined : end);
}

// Side by side: each run waits on its stand-in's answers.
describe.concurrent('contract check (npm run contract) against APIs that break it', () => {
  it('fails on a list walk that loops and leaves plants out, naming the loop and each stored plant it does not list', async ({
    onTestFinished,
    expect,
  }) => {
    // Every answer in the spec's shapes: creates echo the name, deletes are 204, and every page
    // is empty with a next link to the same page.
    const url = await fakeApi(onTestFinished, (req, body, res) => {
      const headers = { 'content-type': 'application/json', 'cache-control': 'no-store' };
      if (req.method === 'DELETE') return res.writeHead(204, { 'cache-control': 'no-store' }).end();
      if (req.method === 'GET') {
        const link = '</plants?limit=10&cursor=again>; rel="next"';
        return res.writeHead(200, { ...headers, link }).end('[]');
      }
      let name = 'Fern';
      try {
        name = JSON.parse(body).name ?? name;
      } catch {
        // A body that is not JSON gets the default name.
      }
      res.writeHead(200, headers).end(JSON.stringify({ name }));
    });

    const { code, stdout } = await contract({ url, token: 'x', runs: failingRuns });

    expect(code).toBe(1);
    expect(stdout).toMatch(/^FAIL GET \/plants\?limit=10&cursor=again \(list walk, page 2\)$/m);
    expect(stdout).toContain(
      '  - the next link /plants?limit=10&cursor=again was followed before: the walk loops',
    );
    expect(stdout).toMatch(/^FAIL GET \/plants\?limit=10 \(list walk\)$/m);
    expect(stdout).toMatch(/^ {2}- plant -?\d+, stored before the walk, is listed 0 times$/m);
  });

  const json = { 'content-type': 'application/json', 'cache-control': 'no-store' };
  it("deletes, after creates that got no certain answer, each plant of the checks' tag it may have stored, and no one else's", async ({
    onTestFinished,
    expect,
  }) => {
    // Every create fails with a 503, which may or may not have stored the plant; a read finds a
    // check's plant under an even id and someone else's under an odd one.
    const posted = new Set<string>();
    /** Every GET and DELETE of one plant, in order: the generated requests may name a posted id too. */
    const touched: string[] = [];
    const url = await fakeApi(onTestFinished, (req, body, res) => {
      const id = /^\/plants\/(-?\d+)$/.exec(req.url ?? '')?.[1];
      if (req.method === 'POST') {
        const sent = plantOf(body);
        const ours = ['Sample', 'Pre-traffic check'].includes(String(sent?.name));
        if (req.headers.authorization && sent?.id !== undefined && !ours) posted.add(sent.id);
        return res.writeHead(503, json).end('{"error":503,"message":"Unavailable"}');
      }
      if (req.method === 'DELETE' && id !== undefined) {
        touched.push(`DELETE ${id}`);
        return res.writeHead(204, { 'cache-control': 'no-store' }).end();
      }
      if (id === undefined) return res.writeHead(200, json).end('[]');
      touched.push(`GET ${id}`);
      const tag = /[02468]$/.test(id) ? checkPlantTag : 'indoor';
      res.writeHead(200, json).end(`{"id":${id},"name":"Fern","tag":"${tag}"}`);
    });

    await contract({ url, token: 'x', runs: failingRuns });

    const even = [...posted].filter((id) => /[02468]$/.test(id));
    expect(even.length).toBeGreaterThan(0);
    expect(even.length).toBeLessThan(posted.size);
    // The clean-up reads each plant it is unsure of, then deletes it only if it carries the
    // checks' tag (a plant a later delete answered 204 for is not read again).
    const read = [...posted].filter((id) => touched.includes(`GET ${id}`));
    expect(read.some((id) => even.includes(id))).toBe(true);
    expect(read.some((id) => !even.includes(id))).toBe(true);
    for (const id of read) {
      const lastRead = touched.lastIndexOf(`GET ${id}`);
      expect(touched.indexOf(`DELETE ${id}`, lastRead) !== -1, id).toBe(even.includes(id));
    }
  });

  describe('against a stand-in that answers each way of asking without a valid token wrongly', () => {
    const wrongAnswers = [
      [
        'a status the spec does not document',
        { name: 'no token', authorization: undefined },
        { status: 418, headers: json, body: '{"error":418,"message":"I am a teapot"}' },
        /status 418 is not documented for createPlant/,
      ],
      [
        'a body off the schema',
        { name: 'a token that is not a JWT', authorization: 'Bearer not-a-token' },
        { status: 200, headers: json, body: '{"name":42}' },
        /body #\/name fails type \(\/components\/schemas\/Plant\/properties\/name\/type\)/,
      ],
      [
        'a 401 without its challenge',
        { name: 'another scheme', authorization: 'Basic Zm9vOmJhcg==' },
        { status: 401, headers: json, body: '{"error":401,"message":"No token"}' },
        /header WWW-Authenticate is required but absent/,
      ],
    ] as const;
    let run: Promise<{ code: number; stdout: string }>;

    // One run for all three: each is the answer to its own request, the first to anything else.
    beforeAll(async () => {
      const closers: (() => void)[] = [];
      afterAll(() => {
        for (const close of closers) close();
      });
      const url = await fakeApi(
        (close) => closers.push(close),
        (req, _body, res) => {
          const [, , wrong] =
            wrongAnswers.find(([, asked]) => asked.authorization === req.headers.authorization) ??
            wrongAnswers[0];
          res.writeHead(wrong.status, wrong.headers).end(wrong.body);
        },
      );
      run = contract({ url, token: 'x', runs: failingRuns });
      run.catch(() => undefined);
    });

    it.for(wrongAnswers)(
      "fails on %s, naming the request, the answer and every operation's check without a token",
      async ([, asked, wrong, violation], { expect }) => {
        const { code, stdout } = await run;
        const failure = failureOf(stdout, `POST /plants (${asked.name})`);

        expect(code).toBe(1);
        expect(failure[0]).toMatch(
          /^ {2}request: content-type application\/json, with(out)? Authorization, body "\{.*\}" \(\d+ bytes\)$/,
        );
        expect(failure[0]).toContain(
          `, ${asked.authorization ? 'with' : 'without'} Authorization,`,
        );
        expect(failure[1]).toBe(
          `  answer:  ${wrong.status}, content-type application/json, body ${JSON.stringify(wrong.body)} (${wrong.body.length} bytes)`,
        );
        expect(failure.join('\n')).toMatch(violation);
        for (const operation of operations) {
          const [withoutToken] = checkStepsOf(operation, checksOf(operation));
          expect(stdout).toContain(
            `(check: ${withoutToken && 'name' in withoutToken ? withoutToken.name : ''})\n`,
          );
        }
        expect(stdout).toMatch(/^FAIL \d+ of \d+ requests$/m);
      },
    );
  });
});
