import { describe, expect, it } from 'vitest';
import { operationNamed, operations } from '../../../functions/operations.ts';
import { int64 } from '../../../functions/plants/plant.ts';
import {
  type CoreAnswer,
  type CoreRequest,
  coreCasesOf,
  freshPlantId,
  judge,
  requestOf,
  runCoreCases,
  type Send,
} from '../../../functions/pre-traffic-check/core-cases.ts';
import { useTestApi } from '../../support/local-api-fixture.ts';

const coreCases = coreCasesOf(operationNamed('create-plant'));
/** The plant POST /plants's cases create, as its operation.ts declares them. */
const checkPlant = { name: 'Pre-traffic check', tag: 'plant-store-check' };

/**
 * The core cases run over HTTP against the local API (`npm start`'s server: the real handler,
 * dynalite, the dev issuer's client-credentials tokens), as `npm run contract` runs them, and
 * judged against answers that break the contract one way each.
 */

const local = useTestApi();
const sent: CoreRequest[] = [];

const overHttp: Send = async (request) => {
  sent.push(request);
  const response = await fetch(new URL(request.path, local.api.url), {
    method: request.method,
    headers: request.headers,
    body: request.body,
  });
  return {
    status: response.status,
    headers: Object.fromEntries(response.headers),
    body: await response.text(),
  };
};

describe('runCoreCases against the local API', () => {
  it('passes every case with a token, in order, sending the run id', async () => {
    sent.length = 0;
    const id = freshPlantId();

    const report = await runCoreCases(overHttp, { id, token: local.token, cases: coreCases });

    expect(report).toEqual({
      passed: true,
      skipped: [],
      results: coreCases.map((testCase) => ({
        name: testCase.name,
        status: testCase.expected.status,
        problems: [],
      })),
    });
    expect(sent.map((request) => request.headers.authorization)).toEqual([
      undefined,
      ...coreCases.slice(1).map(() => `Bearer ${local.token}`),
    ]);
    expect(sent[1]?.body).toBe(
      `{"id":${id},"name":"${checkPlant.name}","tag":"${checkPlant.tag}"}`,
    );
    // The last case deletes the plant the run created: the run leaves nothing behind.
    expect(sent.at(-1)).toMatchObject({ operation: 'delete-plant', path: `/plants/${id}` });
  });

  it('without a token runs only the cases that need none, and skips the rest by name', async () => {
    sent.length = 0;

    const report = await runCoreCases(overHttp, { id: freshPlantId(), cases: coreCases });

    expect(report.passed).toBe(true);
    expect(report.results.map((result) => result.name)).toEqual([coreCases[0]?.name]);
    expect(report.skipped).toEqual(
      coreCases.filter((testCase) => testCase.needsToken).map((testCase) => testCase.name),
    );
    expect(sent).toHaveLength(1);
  });

  it('fails the run when the id was already taken by another plant (the create gets 409)', async () => {
    const id = freshPlantId();
    await overHttp({
      operation: 'create-plant',
      method: 'POST',
      path: '/plants',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${local.token}` },
      body: `{"id":${id},"name":"Someone else's fern"}`,
    });

    const report = await runCoreCases(overHttp, { id, token: local.token, cases: coreCases });

    expect(report.passed).toBe(false);
    expect(report.results[1]?.problems).toContain('status 409, expected 200');
  });

  it('does not pass on no evidence: a run in which no case ran fails', async () => {
    const tokenCases = coreCases.filter((testCase) => testCase.needsToken);

    const report = await runCoreCases(overHttp, { id: freshPlantId(), cases: tokenCases });

    expect(report).toEqual({
      passed: false,
      results: [],
      skipped: tokenCases.map((c) => c.name),
    });
  });

  it('ends the run with the error of a send that throws', async () => {
    const unreachable: Send = () => Promise.reject(new Error('connection refused'));

    await expect(
      runCoreCases(unreachable, { id: freshPlantId(), token: local.token, cases: coreCases }),
    ).rejects.toThrow('connection refused');
  });

  it('still sends the cases marked always after a send that throws, then ends with its error', async () => {
    sent.length = 0;
    const id = freshPlantId();
    let sends = 0;
    // The create goes through, then the connection breaks once.
    const breaksOnce: Send = async (request) => {
      sends += 1;
      if (sends === 3) throw new Error('connection reset');
      return overHttp(request);
    };

    await expect(
      runCoreCases(breaksOnce, { id, token: local.token, cases: coreCases }),
    ).rejects.toThrow('connection reset');

    const always = coreCases.filter((testCase) => testCase.always);
    expect(always.map((testCase) => testCase.operation)).toEqual(['delete-plant']);
    // The 401 and the create were answered; after the break, only the delete was sent.
    expect(sent.map((request) => request.operation)).toEqual([
      'create-plant',
      'create-plant',
      'delete-plant',
    ]);
    const another = await overHttp({
      operation: 'create-plant',
      method: 'POST',
      path: '/plants',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${local.token}` },
      body: `{"id":${id},"name":"Someone else's fern"}`,
    });
    // Another plant may take the id (not 409): the plant the run created is gone.
    expect(another.status).toBe(200);
  });
});

const [unauthorized, created] = coreCases;
if (!unauthorized || !created) throw new Error('the core cases start with the 401 and the create');
const errorBody = (status: number) => JSON.stringify({ error: status, message: 'Nope' });
const json = { 'Content-Type': 'application/json' };
const challenge = { ...json, 'WWW-Authenticate': 'Bearer realm="plant-store"' };

describe('judge', () => {
  it.each<[string, CoreAnswer]>([
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

  it.each<[string, CoreAnswer, string]>([
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

describe('coreCasesOf', () => {
  it.each(operations)(
    "$name's cases ask $method $path, first without a token for the 401 and its challenge",
    (operation) => {
      const cases = coreCasesOf(operation);
      const template = new RegExp(`^${operation.path.replace(/\{\w+\}/g, '[^/?]+')}(\\?|$)`);

      expect(cases.length).toBeGreaterThanOrEqual(3);
      for (const testCase of cases.filter((each) => each.operation === operation.name)) {
        expect(testCase.method).toBe(operation.method);
        expect(testCase.path).toMatch(template);
      }
      for (const testCase of cases.filter((each) => each.operation !== operation.name)) {
        const other = operationNamed(testCase.operation);
        expect(testCase.method).toBe(other.method);
      }
      expect(cases[0]).toMatchObject({
        needsToken: false,
        expected: { status: 401, headers: { 'www-authenticate': expect.any(RegExp) } },
      });
      expect(cases.slice(1).every((testCase) => testCase.needsToken)).toBe(true);
    },
  );

  it.each([
    ['list-plants', ['GET /plants?limit=1', 'GET /plants?limit=1', 'GET /plants?limit=0']],
    ['delete-plant', ['DELETE /plants/42', 'DELETE /plants/42', 'DELETE /plants/01']],
  ] as const)('%s sends the run id in the path and no body', (name, requests) => {
    const sent = coreCasesOf(operationNamed(name)).map((testCase) =>
      requestOf(testCase, '42', 'token'),
    );

    expect(sent.map((request) => `${request.method} ${request.path}`)).toEqual(requests);
    for (const request of sent) expect(request).not.toHaveProperty('body');
  });
});

const [listUnauthorized, listed, badLimit] = coreCasesOf(operationNamed('list-plants'));
const [deleteUnauthorized, deleted, badId] = coreCasesOf(operationNamed('delete-plant'));
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
