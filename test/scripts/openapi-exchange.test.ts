import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  type Answer,
  loadOpenApiExchanges,
  type OpenApiExchanges,
} from '../../scripts/openapi-exchange.ts';
import { useTestApi } from '../support/local-api-fixture.ts';

const createPlant = { method: 'POST', path: '/plants' } as const;
const json = { 'content-type': 'application/json' } as const;

/** One request over node:http, which lets a test set `Host` and stall a body; the whole answer. */
function send(
  url: string,
  init: { method: string; headers: Record<string, string>; body?: Buffer; stallAfter?: number },
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: init.method, headers: init.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(res.headers)) {
          if (typeof value === 'string') headers[name] = value;
        }
        resolve({ status: res.statusCode ?? 0, headers, body: Buffer.concat(chunks).toString() });
      });
    });
    req.on('error', reject);
    if (init.stallAfter === undefined) req.end(init.body);
    else req.write(init.body?.subarray(0, init.stallAfter));
  });
}

/** openapi.yaml, loaded once for the file: both describes read it. */
let spec: OpenApiExchanges;
beforeAll(async () => {
  spec = await loadOpenApiExchanges();
});

describe('loadOpenApiExchanges: checking answers against openapi.yaml', () => {
  const problems = (
    answer: Partial<Answer>,
    route: { method: string; path: string } = createPlant,
  ) => spec.checkAnswer(route, { status: 200, headers: {}, body: '', ...answer });

  it.each([
    ['a Plant', 200, { ...json, 'cache-control': 'no-store' }, '{"name":"Fern","tag":"indoor"}'],
    [
      "the API's 413",
      413,
      json,
      '{"error":413,"message":"Request body must be at most 16384 bytes"}',
    ],
    ["the gateway's 413", 413, json, '{"message":"Request Entity Too Large"}'],
    [
      'a 401 with its challenge',
      401,
      { ...json, 'www-authenticate': 'Bearer realm="x"' },
      '{"error":401,"message":"No"}',
    ],
    [
      'a 503 with Retry-After',
      503,
      { ...json, 'retry-after': '1' },
      '{"error":503,"message":"Busy"}',
    ],
    ["the local server's 408", 408, json, '{"message":"Request Timeout"}'],
  ])('accepts %s', (_case, status, headers, body) => {
    expect(problems({ status, headers, body })).toStrictEqual([]);
  });

  it.each([
    [
      'an undocumented status',
      { status: 418, headers: json, body: '{}' },
      /^status 418 is not documented for createPlant \(documented: 200, 400,/,
    ],
    [
      'a body off the schema',
      { status: 400, headers: json, body: '{"error":"400"}' },
      /^body # fails required .*; #\/error fails type/,
    ],
    [
      'a gateway message with more members',
      { status: 413, headers: json, body: '{"message":"x","more":1}' },
      /^body # fails oneOf/,
    ],
    [
      'an answer that is not JSON',
      { status: 400, headers: json, body: '<html>' },
      /^the body is not JSON$/,
    ],
    [
      'a media type the spec does not document',
      { status: 400, headers: { 'content-type': 'text/html' }, body: 'x' },
      /^media type text\/html is not documented \(documented: application\/json\)$/,
    ],
    [
      'no content type',
      { status: 400, headers: {}, body: '{"error":400,"message":"x"}' },
      /^no Content-Type for a documented body$/,
    ],
    [
      'a body where none is documented',
      { status: 204, headers: { ...json, 'cache-control': 'no-store' }, body: '{}' },
      /^a body where the spec documents none$/,
      { method: 'DELETE', path: '/plants/7' },
    ],
    [
      'a required header absent',
      { status: 403, headers: json, body: '{"error":403,"message":"x"}' },
      /^header WWW-Authenticate is required but absent$/,
    ],
    [
      'a header off its schema',
      {
        status: 503,
        headers: { ...json, 'retry-after': 'soon' },
        body: '{"error":503,"message":"x"}',
      },
      /^header Retry-After: "soon" # fails type/,
    ],
    [
      'a header off its const',
      { status: 200, headers: { ...json, 'cache-control': 'max-age=60' }, body: '{"name":"x"}' },
      /^header Cache-Control: "max-age=60" # fails const/,
    ],
  ])('names %s', (_case, answer, problem, route?: { method: string; path: string }) => {
    expect(problems(answer, route)).toStrictEqual([expect.stringMatching(problem)]);
  });

  it('judges a route the spec does not list by x-unmatched-route-responses', () => {
    const route = { method: 'GET', path: '/no-such-route' };

    expect(
      problems({ status: 404, headers: json, body: '{"message":"Not Found"}' }, route),
    ).toStrictEqual([]);
    expect(problems({ status: 200, headers: json, body: '{}' }, route)).toStrictEqual([
      'status 200 is not documented for a route the spec does not list (documented: 404)',
    ]);
  });

  it('tells which request bodies the spec accepts', () => {
    const operation = spec.operationOf(createPlant);
    if (operation === undefined) throw new Error('no POST /plants');

    expect(spec.acceptsBody(operation, '{"id":1,"name":"Fern"}')).toBe(true);
    expect(spec.acceptsBody(operation, `{"id":1,"name":"${'\u0958'.repeat(150)}"}`)).toBe(true);
    expect(spec.acceptsBody(operation, `{"id":1,"name":"${'e\u0301'.repeat(150)}"}`)).toBe(false);
    expect(spec.acceptsBody(operation, '{"id":18446744073709551616,"name":"Fern"}')).toBe(false);
    expect(spec.acceptsBody(operation, '{"id":1,"name":"Fern","tag":null}')).toBe(false);
    expect(spec.acceptsBody(operation, '{"id":1,')).toBe(false);
  });

  it.each([
    ['/plants', true],
    ['/plants?limit=1', true],
    ['/plants?limit=100&cursor=anything', true],
    ['/plants?cursor=&other=1', true],
    ['/plants?limit=0', false],
    ['/plants?limit=-1', false],
    ['/plants?limit=101', false],
    ['/plants?limit=1.5', false],
    ['/plants?limit=abc', false],
    ['/plants?limit=2147483648', false],
    ['/plants?limit=', false],
    ['/plants?limit=01', false],
    ['/plants?limit=%2B5', false],
    ['/plants?limit=5&limit=5', false],
    ['/plants?limit=1,2', false],
    ['/plants?cursor=a&cursor=b', false],
  ])('judges the list query %s: accepted %s', (target, accepted) => {
    const operation = spec.operationOf({ method: 'GET', path: target });
    if (operation === undefined) throw new Error('no GET /plants');

    expect(spec.acceptsParameters(operation, target)).toBe(accepted);
  });

  it.each([
    ['/plants/0', true],
    ['/plants/-9223372036854775808', true],
    ['/plants/9223372036854775807', true],
    ['/plants/%31', true],
    ['/plants/01', false],
    ['/plants/1.0', false],
    ['/plants/-0', false],
    ['/plants/+1', false],
    ['/plants/1e3', false],
    ['/plants/abc', false],
    ['/plants/9223372036854775808', false],
    ['/plants/-9223372036854775809', false],
    ['/plants/%201', false],
  ])('judges the path id of %s: accepted %s', (target, accepted) => {
    const operation = spec.operationOf({ method: 'DELETE', path: target });
    if (operation === undefined) throw new Error('no DELETE /plants/{id}');

    expect(spec.acceptsParameters(operation, target)).toBe(accepted);
  });

  it('lists the parameters of an operation, resolved', () => {
    const list = spec.operationOf({ method: 'GET', path: '/plants' });
    const remove = spec.operationOf({ method: 'DELETE', path: '/plants/1' });
    if (list === undefined || remove === undefined) throw new Error('no list or delete');

    expect(spec.parameters(list).map(({ name, in: where }) => `${where} ${name}`)).toStrictEqual([
      'query limit',
      'query cursor',
    ]);
    expect(spec.parameters(remove)).toMatchObject([
      { name: 'id', in: 'path', required: true, schema: { type: 'integer', format: 'int64' } },
      { name: 'If-Match', in: 'header', required: false },
    ]);
  });

  it('judges the answers of list and delete: a page with its Link, and a 204 with no body', () => {
    const list = { method: 'GET', path: '/plants?limit=2' };
    const remove = { method: 'DELETE', path: '/plants/7' };
    const page = '[{"id":9223372036854775807,"name":"Max"},{"id":1,"name":"Fern","tag":"indoor"}]';
    const link = '</plants?limit=2&cursor=abc>; rel="next"';
    const noStore = { 'cache-control': 'no-store' };

    expect(
      problems({ status: 200, headers: { ...json, ...noStore, link }, body: page }, list),
    ).toStrictEqual([]);
    expect(problems({ status: 204, headers: noStore, body: '' }, remove)).toStrictEqual([]);
    expect(
      problems({ status: 200, headers: { ...json, ...noStore }, body: '[{"name":"Fern"}]' }, list),
    ).toStrictEqual([expect.stringMatching(/^body #\/0 fails required/)]);
    expect(
      problems({ status: 200, headers: { ...json, ...noStore, link: '<x>' }, body: '[]' }, list),
    ).toStrictEqual([expect.stringMatching(/^header Link: "<x>" # fails pattern/)]);
    expect(problems({ status: 204, headers: noStore, body: '{}' }, remove)).toStrictEqual([
      'a body where the spec documents none',
    ]);
  });

  it('reaches an operation of a templated path, a literal path first', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'openapi-'));
    const file = join(dir, 'openapi.yaml');
    const answered = (description: string) => `{responses: {'204': {description: ${description}}}}`;
    await writeFile(
      file,
      `{openapi: 3.1.0, info: {title: t, version: '1'}, paths: {
        '/plants/{id}': {delete: ${answered('deleted')}},
        '/plants/all': {delete: ${answered('all deleted')}}}}`,
    );

    try {
      const templated = await loadOpenApiExchanges(pathToFileURL(file));

      expect(templated.operationOf({ method: 'DELETE', path: '/plants/42' })?.pointer).toBe(
        '/paths/~1plants~1{id}/delete',
      );
      expect(templated.operationOf({ method: 'DELETE', path: '/plants/all' })?.pointer).toBe(
        '/paths/~1plants~1all/delete',
      );
      expect(templated.operationOf({ method: 'DELETE', path: '/plants/4/2' })).toBeUndefined();
      expect(
        templated.checkAnswer(
          { method: 'DELETE', path: '/plants/42' },
          { status: 204, headers: {}, body: '' },
        ),
      ).toStrictEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses a document that is not valid OpenAPI 3.1', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'openapi-'));
    const file = join(dir, 'openapi.yaml');
    await writeFile(file, 'openapi: 3.1.0\ninfo:\n  title: No version\npaths: {}\n');

    try {
      await expect(loadOpenApiExchanges(pathToFileURL(file))).rejects.toThrow(
        /is not a valid OpenAPI 3\.1 document/,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("the local server's own answers are the ones openapi.yaml documents", () => {
  const budget = 32 * 1024;
  const local = useTestApi({ limits: { bodyBytesInFlight: budget, requestTimeoutMs: 1_000 } });

  const post = (headers: Record<string, string>, body: Buffer, stallAfter?: number) =>
    send(`${local.api.url}/plants`, {
      method: 'POST',
      headers: { ...json, authorization: `Bearer ${local.token}`, ...headers },
      body,
      ...(stallAfter === undefined ? {} : { stallAfter }),
    });

  it('404 for a route the spec does not list', async () => {
    const answer = await send(`${local.api.url}/no-such-route`, { method: 'DELETE', headers: {} });

    expect(answer.status).toBe(404);
    expect(spec.checkAnswer({ method: 'DELETE', path: '/no-such-route' }, answer)).toStrictEqual(
      [],
    );
  });

  it('413 for a body over 10 MB', async () => {
    // fetch in the server's own process: the gateway answers before reading such a body, and
    // over a socket to another process the client may see the connection closed first.
    const response = await fetch(`${local.api.url}/plants`, {
      method: 'POST',
      headers: { ...json, authorization: `Bearer ${local.token}` },
      body: Buffer.alloc(10 * 1024 * 1024 + 1, 0x20),
    });
    const headers = Object.fromEntries(response.headers);
    const answer = { status: response.status, headers, body: await response.text() };

    expect(answer.status).toBe(413);
    expect(answer.body).toBe('{"message":"Request Entity Too Large"}');
    expect(spec.checkAnswer(createPlant, answer)).toStrictEqual([]);
  });

  it('421 for a Host that does not name it', async () => {
    const answer = await post({ host: 'rebound.example' }, Buffer.from('{"id":1,"name":"Fern"}'));

    expect(answer.status).toBe(421);
    expect(spec.checkAnswer(createPlant, answer)).toStrictEqual([]);
  });

  it('429 while the bodies in flight fill the budget, and 408 for the body that stalled', async () => {
    const stalled = post(
      { 'content-length': String(budget) },
      Buffer.alloc(budget, 0x20),
      budget - 1_000,
    );
    await new Promise((resolve) => setTimeout(resolve, 200));

    const refused = await post(
      {},
      Buffer.from(`{"id":2,"name":"Ivy","padding":"${'x'.repeat(2_000)}"}`),
    );
    const timedOut = await stalled;

    expect(refused.status).toBe(429);
    expect(spec.checkAnswer(createPlant, refused)).toStrictEqual([]);
    expect(timedOut.status).toBe(408);
    expect(spec.checkAnswer(createPlant, timedOut)).toStrictEqual([]);
  }, 10_000);
});
