import { isDeepStrictEqual } from 'node:util';
import { type Operation, requestPath, routeKey } from '../operation.ts';
import {
  type CheckCase,
  type checkPlantDeleted,
  type ExpectedBody,
  etagPlaceholder,
  idPlaceholder,
  type OperationChecks,
  previousEtagPlaceholder,
} from './check.ts';

// The one runner of the checks, for the pre-traffic hook, `npm run smoke` and `npm run contract`:
// each brings its own `send` and fixture, the rules of judging are shared.

/** Header names are lowercase. */
export type CheckRequest = {
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
};

/** Header names may be in any case. */
export type CheckAnswer = {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly body: string;
};

/** Throws when no answer could be had. */
export type Send = (request: CheckRequest) => Promise<CheckAnswer>;

/** Keeps the check plant past the operation under test. */
export type CheckFixture = {
  /** Stores `checkPlant` under `id`; resolves with its strong ETag. */
  create(id: string): Promise<string>;
  /** An id that holds nothing is no error. */
  delete(id: string): Promise<void>;
};

export type CheckStep = (CheckCase & { readonly withoutToken?: true }) | typeof checkPlantDeleted;

export type CaseResult = {
  readonly name: string;
  readonly status: number;
  readonly problems: readonly string[];
};

export type ChecksReport = {
  readonly passed: boolean;
  readonly results: readonly CaseResult[];
  /** The cases that need a token, when the run had none. */
  readonly skipped: readonly string[];
  /** A `send` or fixture step that threw, once the plant was deleted. */
  readonly error?: unknown;
};

type EtagsSeen = { readonly latest?: string; readonly previous?: string };

/** The sample without a token (401 with the Bearer challenge), then the declared steps. */
export function checkStepsOf(operation: Operation, checks: OperationChecks): readonly CheckStep[] {
  const { query, body } = checks.sample.request(idPlaceholder);
  const name = `a request to ${routeKey(operation)} without a token gets 401 with the Bearer challenge`;
  const expected = { status: 401, body: { kind: 'error' } } as const;
  return [{ name, query, body, withoutToken: true, expected }, ...checks.cases];
}

/**
 * With a token, the fixture stores the plant before the first case that needs it and deletes it
 * last, whatever happened. Without one, only the case that needs none is sent.
 */
export async function runChecks(
  operation: Operation,
  checks: OperationChecks,
  options: { send: Send; fixture?: CheckFixture; id: string; token?: string | undefined },
): Promise<ChecksReport> {
  const { send, id, token } = options;
  const plant = token === undefined ? undefined : options.fixture;
  if (token !== undefined && plant === undefined) {
    throw new Error('a run with a token needs a fixture for its plant');
  }
  const results: CaseResult[] = [];
  const skipped: string[] = [];
  let etags: EtagsSeen = {};
  const seen = (etag: string | undefined) => {
    if (etag !== undefined && etag !== etags.latest)
      etags = { latest: etag, previous: etags.latest };
  };
  let stored = checks.plant === 'absent';
  const run = async () => {
    for (const step of checkStepsOf(operation, checks)) {
      if ('fixture' in step) {
        await plant?.delete(id);
      } else if (!step.withoutToken && token === undefined) {
        skipped.push(step.name);
      } else {
        if (!step.withoutToken && !stored) {
          stored = true;
          seen(await plant?.create(id));
        }
        const sent = requestOf(operation, step, id, step.withoutToken ? undefined : token, etags);
        const answer = await send(sent);
        seen(headerOf(answer, 'etag'));
        results.push({ name: step.name, status: answer.status, problems: judge(step, answer, id) });
      }
    }
  };
  let broken: { readonly error: unknown } | undefined;
  try {
    if (plant === undefined) await run();
    else await finallyAlways(run, () => plant.delete(id));
  } catch (error) {
    broken = { error };
  }
  const passed = broken === undefined && results.every(({ problems }) => problems.length === 0);
  return { passed, results, skipped, ...broken };
}

/** `run`'s result once `cleanUp` has run; a failure of both is one error, so neither hides. */
export async function finallyAlways<T>(
  run: () => Promise<T>,
  cleanUp: () => Promise<void>,
): Promise<T> {
  let result: T;
  try {
    result = await run();
  } catch (error) {
    await cleanUp().catch((cleanUpError: unknown) => {
      throw new AggregateError([error, cleanUpError], `${error}; then ${cleanUpError}`);
    });
    throw error;
  }
  await cleanUp();
  return result;
}

export function requestOf(
  operation: Operation,
  testCase: CheckCase,
  id: string,
  token?: string,
  etags: EtagsSeen = {},
): CheckRequest {
  const { body } = testCase;
  const headers = Object.fromEntries(
    Object.entries(testCase.headers ?? {}).map(([name, value]) => [
      name,
      value
        .replaceAll(etagPlaceholder, etags.latest ?? '')
        .replaceAll(previousEtagPlaceholder, etags.previous ?? ''),
    ]),
  );
  return {
    method: operation.method,
    path: requestPath(operation, {
      pathParameters: { id: testCase.id ?? id },
      query: testCase.query,
    }),
    headers: {
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    },
    ...(body === undefined ? {} : { body: body.replaceAll(idPlaceholder, id) }),
  };
}

/** Every way the answer differs from the case: status, headers (its own and its kind's), body. */
export function judge(testCase: CheckCase, answer: CheckAnswer, id = ''): string[] {
  const { status, body } = testCase.expected;
  const problems = answer.status === status ? [] : [`status ${answer.status}, expected ${status}`];
  const headers = {
    ...(body.kind === 'empty' ? {} : { 'content-type': /^application\/json\b/ }),
    ...(status === 401 ? { 'www-authenticate': /^Bearer realm="plant-store"/ } : {}),
    ...testCase.expected.headers,
  };
  for (const [name, pattern] of Object.entries(headers)) {
    const value = headerOf(answer, name);
    if (value === undefined) problems.push(`no ${name} header, expected ${pattern}`);
    else if (!pattern.test(value)) problems.push(`${name} is ${quote(value)}, expected ${pattern}`);
  }
  const problem = bodyProblem(body, answer.body, status, id);
  return problem === undefined ? problems : [...problems, problem];
}

function bodyProblem(
  expected: ExpectedBody,
  text: string,
  status: number,
  id: string,
): string | undefined {
  if (expected.kind === 'empty') {
    return text === '' ? undefined : `body is ${quote(text)}, expected none`;
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return `body is not JSON: ${quote(text)}`;
  }
  const [matches, wanted] =
    expected.kind === 'error'
      ? [isErrorShape(body, status), `{"error":${status},"message":"…"}`]
      : expected.kind === 'list'
        ? [Array.isArray(body) && body.every(isListItem), '[{"id":…,"name":"…"},…]']
        : exactly(body, JSON.stringify(expected.value).replaceAll(`"${idPlaceholder}"`, id));
  return matches ? undefined : `body is ${quote(text)}, expected ${wanted}`;
}

function exactly(body: unknown, text: string): [boolean, string] {
  return [isDeepStrictEqual(body, JSON.parse(text)), text];
}

function isListItem(item: unknown): boolean {
  const { id, name } = (item ?? {}) as Record<string, unknown>;
  return !Array.isArray(item) && typeof id === 'number' && typeof name === 'string';
}

function isErrorShape(body: unknown, status: number): boolean {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  const { error, message, ...rest } = body as Record<string, unknown>;
  const described = typeof message === 'string' && message.length > 0;
  return error === status && described && Object.keys(rest).length === 0;
}

export function headerOf(answer: CheckAnswer, name: string): string | undefined {
  return Object.entries(answer.headers).find(([each]) => each.toLowerCase() === name)?.[1];
}

/** Answers end up in logs: long ones are cut. */
function quote(text: string): string {
  return JSON.stringify(text.length > 200 ? `${text.slice(0, 200)}…` : text);
}

/** A random non-zero int64, nearly always beyond 2^53, so the run shows the id travels exactly. */
export function freshPlantId(): string {
  const [value = 0n] = crypto.getRandomValues(new BigInt64Array(1));
  return String(value === 0n ? 1n : value);
}
