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

/**
 * The one runner of an operation's checks: the pre-traffic hook (which invokes a version
 * directly), `npm run smoke` and `npm run contract` (which speak HTTP to a running API) send the
 * same requests through their own `send`, keep the check plant through their own fixture, and
 * judge the answers by the same rules.
 */

/** What a case sends. Header names are lowercase. */
export type CheckRequest = {
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
};

/** What came back. Header names may be in any case. */
export type CheckAnswer = {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly body: string;
};

/** Delivers one request and resolves with its answer; throws when no answer could be had. */
export type Send = (request: CheckRequest) => Promise<CheckAnswer>;

/** Where the check plant is kept, past the operation under test. */
export type CheckFixture = {
  /** Stores the check plant (`checkPlant`) under `id`; resolves with its strong ETag. */
  create(id: string): Promise<string>;
  /** Deletes whatever is stored under `id`; an id that holds nothing is no error. */
  delete(id: string): Promise<void>;
};

/** A case of a run (`withoutToken`: the one made from the sample), or a step of the fixture. */
export type CheckStep = (CheckCase & { readonly withoutToken?: true }) | typeof checkPlantDeleted;

export type CaseResult = {
  readonly name: string;
  readonly status: number;
  /** What did not match; empty when the case passed. */
  readonly problems: readonly string[];
};

export type ChecksReport = {
  /** Every case that ran passed, and nothing broke the run off. */
  readonly passed: boolean;
  readonly results: readonly CaseResult[];
  /** The cases that need a token, not run because the run had none. */
  readonly skipped: readonly string[];
  /** What broke the run off (a `send` or a fixture step that threw), once the plant was deleted. */
  readonly error?: unknown;
};

/** The ETags of the answers so far (the fixture's plant first): the latest, the one before it. */
type EtagsSeen = { readonly latest?: string; readonly previous?: string };

/**
 * An operation's steps, in order: its sample without a token (which must get 401 with the Bearer
 * challenge), then the steps its checks declare, each sent with a token.
 */
export function checkStepsOf(operation: Operation, checks: OperationChecks): readonly CheckStep[] {
  const { query, body } = checks.sample.request(idPlaceholder);
  const name = `a request to ${routeKey(operation)} without a token gets 401 with the Bearer challenge`;
  const expected = { status: 401, body: { kind: 'error' } } as const;
  return [{ name, query, body, withoutToken: true, expected }, ...checks.cases];
}

/**
 * Runs an operation's checks: each case is sent in order and its answer judged. With a token, the
 * fixture stores the check plant before the first case that needs one (unless the checks make it
 * themselves), and deletes it last, whatever happened before. A `send` or a fixture step that
 * throws ends the run, its error in the report beside the cases that ran. Without a token, only
 * the case that needs none is sent, and no plant is stored.
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

/**
 * What `run` resolves with, once `cleanUp` has run, whatever became of `run`. A failure of both
 * is told as one error naming both, so that neither hides the other.
 */
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

/** The request a case sends about the plant `id`, with this token and these ETags seen. */
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

/**
 * Every way the answer differs from what the case expects: its status, each header it names and
 * those its kind of answer carries (a JSON content type with a body, the Bearer challenge with a
 * 401), and its body.
 */
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

/** How the body differs from what the case expects, if it does. */
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

/** Whether `body` is the JSON `text` holds, and that text. */
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

/** A header of the answer, whatever the case of its name. */
export function headerOf(answer: CheckAnswer, name: string): string | undefined {
  return Object.entries(answer.headers).find(([each]) => each.toLowerCase() === name)?.[1];
}

/** Answers end up in logs: long ones are cut. */
function quote(text: string): string {
  return JSON.stringify(text.length > 200 ? `${text.slice(0, 200)}…` : text);
}

/**
 * A random int64 other than 0, from the whole signed range: nearly always beyond 2^53, so the
 * run also shows that the id travels exactly.
 */
export function freshPlantId(): string {
  const [value = 0n] = crypto.getRandomValues(new BigInt64Array(1));
  return String(value === 0n ? 1n : value);
}
