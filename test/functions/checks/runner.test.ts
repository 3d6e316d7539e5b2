import { describe, expect, it } from 'vitest';
import { checkPlant, checkPlantTag } from '../../../functions/checks/check.ts';
import {
  type CheckAnswer,
  type CheckFixture,
  type CheckRequest,
  type CheckStep,
  checkStepsOf,
  freshPlantId,
  judge,
  requestOf,
  runChecks,
  type Send,
} from '../../../functions/checks/runner.ts';
import { checksOf, operationNamed, operations } from '../../../functions/operations.ts';
import { int64 } from '../../../functions/plants/plant.ts';
import { apiFixture, sendHttp } from '../../../scripts/check-http.ts';
import { useTestApi } from '../../support/local-api-fixture.ts';

/**
 * The runner over HTTP against the local API (`npm start`'s server: the real handlers, dynalite,
 * the dev issuer's client-credentials tokens), with the fixture that keeps the check plant
 * through the API, as `npm run smoke` and `npm run contract` run it; and judged against answers
 * that break the contract one way each.
 */

const local = useTestApi();
const sent: CheckRequest[] = [];
const overHttp: Send = (request) => {
  sent.push(request);
  return sendHttp(local.api.url, request, 10_000);
};
/** The fixture over HTTP, its own requests kept apart from the cases'. */
const fixture = (): CheckFixture =>
  apiFixture((request) => sendHttp(local.api.url, request, 10_000), local.token);
const stepsOf = (name: string) => {
  const operation = operationNamed(name);
  return checkStepsOf(operation, checksOf(operation));
};
const casesOf = (steps: readonly CheckStep[]) =>
  steps.flatMap((step) => ('fixture' in step ? [] : [step]));
const run = (
  name: string,
  options: { id?: string; token?: string; send?: Send; fixture?: CheckFixture } = {},
) => {
  const operation = operationNamed(name);
  return runChecks(operation, checksOf(operation), {
    send: overHttp,
    fixture: fixture(),
    id: freshPlantId(),
    token: local.token,
    ...options,
  });
};
/** The plant stored under `id`, read past the runner. */
const stored = async (id: string) =>
  (
    await sendHttp(
      local.api.url,
      { method: 'GET', path: `/plants/${id}`, headers: { authorization: `Bearer ${local.token}` } },
      10_000,
    )
  ).status;

describe('runChecks against the local API', () => {
  it.each(operations)(
    "passes $name's checks, in order, and leaves no plant under the run's id",
    async (operation) => {
      const id = freshPlantId();

      const report = await run(operation.name, { id });

      expect(report).toEqual({
        passed: true,
        skipped: [],
        results: casesOf(checkStepsOf(operation, checksOf(operation))).map((testCase) => ({
          name: testCase.name,
          status: testCase.expected.status,
          problems: [],
        })),
      });
      expect(await stored(id)).toBe(404);
    },
  );

  it("sends POST /plants's cases with the run's id, the first without a token, and makes the plant itself", async () => {
    sent.length = 0;
    const id = freshPlantId();

    await run('create-plant', { id });

    expect(sent.map((request) => request.headers.authorization)).toEqual([
      undefined,
      ...sent.slice(1).map(() => `Bearer ${local.token}`),
    ]);
    expect(sent[1]?.body).toBe(`{"id":${id},"name":"${checkPlant.name}","tag":"${checkPlantTag}"}`);
  });

  it("sends the fixture's ETag in If-None-Match, and the one a replace made stale in If-Match", async () => {
    sent.length = 0;
    await run('get-plant');
    const read = sent.find((request) => request.headers['if-none-match'] !== undefined);
    sent.length = 0;
    await run('replace-plant');
    const [first, stale] = sent.flatMap((request) => request.headers['if-match'] ?? []);

    expect(read?.headers['if-none-match']).toMatch(/^"[^"]+"$/);
    expect(stale).toBe(first);
  });

  it('without a token runs only the cases that need none, skips the rest by name and keeps no plant', async () => {
    sent.length = 0;
    const used: string[] = [];
    const watched: CheckFixture = {
      create: async () => {
        used.push('create');
        return '"x"';
      },
      delete: async () => {
        used.push('delete');
      },
    };
    const steps = casesOf(stepsOf('get-plant'));

    const report = await run('get-plant', { token: undefined, fixture: watched });

    expect(report.passed).toBe(true);
    expect(report.results.map((result) => result.name)).toEqual([steps[0]?.name]);
    expect(report.skipped).toEqual(steps.slice(1).map((testCase) => testCase.name));
    expect(sent).toHaveLength(1);
    expect(used).toEqual([]);
  });

  it('fails the run when the id was already taken by another plant (the create gets 409)', async () => {
    const id = freshPlantId();
    await overHttp({
      method: 'POST',
      path: '/plants',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${local.token}` },
      body: `{"id":${id},"name":"Someone else's fern"}`,
    });

    const report = await run('create-plant', { id });

    expect(report.passed).toBe(false);
    expect(report.results[1]?.problems).toContain('status 409, expected 200');
  });

  it('deletes the plant after a send that throws, and reports its error beside the cases that ran', async () => {
    const id = freshPlantId();
    let sends = 0;
    // The 401 and the first read are answered, then the connection breaks.
    const breaks: Send = async (request) => {
      sends += 1;
      if (sends === 3) throw new Error('connection reset');
      return overHttp(request);
    };

    const report = await run('get-plant', { id, send: breaks });

    expect(report).toMatchObject({ passed: false, error: new Error('connection reset') });
    expect(report.results.map((result) => result.status)).toEqual([401, 200]);
    expect(await stored(id)).toBe(404);
  });

  it('sends the case without a token before it stores the plant, and names both errors when neither works', async () => {
    const failing: CheckFixture = {
      create: () => Promise.reject(new Error('table gone')),
      delete: () => Promise.reject(new Error('table still gone')),
    };

    const report = await run('get-plant', { fixture: failing });

    expect(report.results.map((result) => [result.status, result.problems])).toEqual([[401, []]]);
    expect(report.passed).toBe(false);
    expect(String((report.error as Error).message)).toBe(
      'Error: table gone; then Error: table still gone',
    );
  });

  it('refuses a run with a token but no fixture: its plant would have nowhere to be', async () => {
    const operation = operationNamed('get-plant');

    await expect(
      runChecks(operation, checksOf(operation), { send: overHttp, id: '1', token: 't' }),
    ).rejects.toThrow('a run with a token needs a fixture for its plant');
  });
});

const [unauthorized, created] = casesOf(stepsOf('create-plant'));
if (!unauthorized || !created)
  throw new Error('the create cases start with the 401 and the create');
const errorBody = (status: number) => JSON.stringify({ error: status, message: 'Nope' });
const json = { 'Content-Type': 'application/json' };
const challenge = { ...json, 'WWW-Authenticate': 'Bearer realm="plant-store"' };

describe('judge', () => {
  it.each<[string, CheckAnswer]>([
    ['a challenge in any header case', { status: 401, headers: challenge, body: errorBody(401) }],
    [
      'a challenge with an error code',
      {
        status: 401,
        headers: {
          ...json,
          'www-authenticate': 'Bearer realm="plant-store", error="invalid_token"',
        },
        body: errorBody(401),
      },
    ],
  ])('accepts %s', (_case, answer) => {
    expect(judge(unauthorized, answer)).toEqual([]);
  });

  it.each<[string, CheckAnswer, string]>([
    ['another status', { status: 403, headers: challenge, body: errorBody(403) }, 'status 403'],
    ['no challenge', { status: 401, headers: json, body: errorBody(401) }, 'no www-authenticate'],
    [
      'another scheme',
      {
        status: 401,
        headers: { ...json, 'www-authenticate': 'Basic realm="x"' },
        body: errorBody(401),
      },
      'www-authenticate is "Basic realm=\\"x\\""',
    ],
    [
      'another realm',
      {
        status: 401,
        headers: { ...json, 'www-authenticate': 'Bearer realm="x"' },
        body: errorBody(401),
      },
      'www-authenticate is',
    ],
    [
      'no content type',
      {
        status: 401,
        headers: { 'www-authenticate': 'Bearer realm="plant-store"' },
        body: errorBody(401),
      },
      'no content-type',
    ],
    ['a text answer', { status: 401, headers: challenge, body: 'Unauthorized' }, 'not JSON'],
    [
      'the error of another status',
      { status: 401, headers: challenge, body: errorBody(400) },
      'body is',
    ],
    [
      'an error with more fields',
      { status: 401, headers: challenge, body: '{"error":401,"message":"No","stack":"at x"}' },
      'body is',
    ],
    [
      'an empty message',
      { status: 401, headers: challenge, body: '{"error":401,"message":""}' },
      'body is',
    ],
    [
      'the gateway shape',
      { status: 401, headers: challenge, body: '{"message":"Unauthorized"}' },
      'body is',
    ],
  ])('refuses a 401 case answered with %s', (_case, answer, problem) => {
    expect(judge(unauthorized, answer).join('\n')).toContain(problem);
  });

  it.each<[string, string]>([
    ['the id echoed', JSON.stringify({ ...checkPlant, id: 1 })],
    ['another name', JSON.stringify({ ...checkPlant, name: 'Fern' })],
    ['no tag', JSON.stringify({ name: checkPlant.name })],
  ])('refuses a create answered with %s', (_case, body) => {
    expect(judge(created, { status: 200, headers: json, body })).toEqual([
      expect.stringMatching(/^body is .*, expected \{"name":"Pre-traffic check"/),
    ]);
  });

  it('cuts a long answer in its problem', () => {
    const problems = judge(created, { status: 500, headers: json, body: 'x'.repeat(10_000) });

    expect(problems).toContain('status 500, expected 200');
    expect(problems.join('\n').length).toBeLessThan(400);
  });
});

describe('checkStepsOf', () => {
  it.each(operations)(
    "$name's cases ask $method $path, first without a token for the 401 and its challenge",
    (operation) => {
      const cases = casesOf(checkStepsOf(operation, checksOf(operation)));
      const template = new RegExp(`^${operation.path.replace(/\{\w+\}/g, '[^/?]+')}(\\?|$)`);

      expect(cases.length).toBeGreaterThanOrEqual(3);
      for (const testCase of cases) {
        const request = requestOf(operation, testCase, '42');
        expect(request.method).toBe(operation.method);
        expect(request.path).toMatch(template);
      }
      expect(cases[0]).toMatchObject({ withoutToken: true, expected: { status: 401 } });
      expect(cases.slice(1).every((testCase) => testCase.withoutToken === undefined)).toBe(true);
    },
  );

  it.each([
    ['list-plants', ['GET /plants?limit=1', 'GET /plants?limit=1', 'GET /plants?limit=0']],
    [
      'delete-plant',
      [
        'DELETE /plants/42',
        'DELETE /plants/42',
        'DELETE /plants/42',
        'DELETE /plants/42',
        'DELETE /plants/01',
      ],
    ],
  ] as const)('%s sends the run id in the path and no body', (name, requests) => {
    const requested = casesOf(stepsOf(name)).map((testCase) =>
      requestOf(operationNamed(name), testCase, '42', 'token'),
    );

    expect(requested.map((request) => `${request.method} ${request.path}`)).toEqual(requests);
    for (const request of requested) expect(request).not.toHaveProperty('body');
  });
});

const [listUnauthorized, listed, badLimit] = casesOf(stepsOf('list-plants'));
const [deleteUnauthorized, , , deleted, badId] = casesOf(stepsOf('delete-plant'));
if (!listUnauthorized || !listed || !badLimit || !deleteUnauthorized || !deleted || !badId) {
  throw new Error('the list and delete cases: 401, success, 400');
}

describe('judge, for list and delete', () => {
  it.each([
    ['an empty page', '[]'],
    [
      'plants with and without a tag',
      '[{"id":1,"name":"Fern"},{"id":-9223372036854775808,"name":"Moss","tag":"x"}]',
    ],
  ])('accepts a list answered with %s', (_case, body) => {
    expect(judge(listed, { status: 200, headers: json, body })).toEqual([]);
  });

  it.each([
    ['an object', '{"plants":[]}'],
    ['null', 'null'],
    ['an item without an id', '[{"name":"Fern"}]'],
    ['an id as text', '[{"id":"1","name":"Fern"}]'],
    ['an item that is no object', '[1]'],
  ])('refuses a list answered with %s', (_case, body) => {
    expect(judge(listed, { status: 200, headers: json, body })).toEqual([
      expect.stringMatching(/^body is .*, expected \[\{"id":…,"name":"…"\},…\]$/),
    ]);
  });

  it('accepts a delete answered with 204 and no body, whatever its headers', () => {
    expect(judge(deleted, { status: 204, headers: {}, body: '' })).toEqual([]);
  });

  it.each([
    ['a 200 with the plant', 200, '{"name":"Fern"}', ['status 200, expected 204', 'body is']],
    ['a 204 with a body', 204, '{}', ['body is "{}", expected none']],
    ['a 404', 404, '{"error":404,"message":"Not found"}', ['status 404, expected 204']],
  ])('refuses a delete answered with %s', (_case, status, body, problems) => {
    const found = judge(deleted, { status, headers: json, body }).join('\n');

    for (const problem of problems) expect(found).toContain(problem);
  });

  it.each([
    ['a limit of 0', badLimit],
    ['an id in another spelling', badId],
  ])('wants %s refused with 400 in the error shape', (_case, testCase) => {
    expect(judge(testCase, { status: 400, headers: json, body: errorBody(400) })).toEqual([]);
    expect(judge(testCase, { status: 200, headers: json, body: '[]' })).toContain(
      'status 200, expected 400',
    );
    expect(
      judge(testCase, { status: 404, headers: json, body: '{"message":"Not Found"}' }),
    ).toEqual(expect.arrayContaining(['status 404, expected 400']));
  });

  it.each([
    ['list', listUnauthorized],
    ['delete', deleteUnauthorized],
  ])('wants an unauthorized %s refused with the Bearer challenge', (_case, testCase) => {
    expect(judge(testCase, { status: 401, headers: challenge, body: errorBody(401) })).toEqual([]);
    expect(judge(testCase, { status: 401, headers: json, body: errorBody(401) })).toContain(
      'no www-authenticate header, expected /^Bearer realm="plant-store"/',
    );
  });
});

describe('freshPlantId', () => {
  it('draws distinct non-zero int64 ids, beyond 2^53 in magnitude nearly always', () => {
    const ids = Array.from({ length: 200 }, () => BigInt(freshPlantId()));

    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) {
      expect(id).not.toBe(0n);
      expect(id >= int64.min && id <= int64.max).toBe(true);
    }
    const large = ids.filter((id) => id > 2n ** 53n || id < -(2n ** 53n));
    expect(large.length).toBeGreaterThan(190);
  });
});
