import { isDeepStrictEqual } from 'node:util';
import {
  type CoreCase,
  type ExpectedBody,
  type Operation,
  requestPath,
  routeKey,
} from '../operation.ts';
import { operationNamed } from '../operations.ts';

export type { ExpectedBody } from '../operation.ts';

/**
 * The contract's core cases: for each operation, the few requests whose answers show that a
 * version of it authenticates, does its work (writes and replays safely, lists, deletes) and
 * refuses bad input in the contract's shape. They are data, run by `runCoreCases` through a `send`
 * callback, so that the pre-traffic hook (which invokes a version directly) and `npm run contract`
 * (which speaks HTTP to a running API) send the very same requests and judge the answers the same
 * way.
 */

/** What a case sends. Header names are lowercase. */
export type CoreRequest = {
  /** The operation of the list the request is for, by name. */
  readonly operation: string;
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
};

/** What came back. Header names may be in any case. */
export type CoreAnswer = {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly body: string;
};

/** Delivers one request and resolves with its answer; throws when no answer could be had. */
export type Send = (request: CoreRequest) => Promise<CoreAnswer>;

export const idPlaceholder = '{{id}}';
export const etagPlaceholder = '{{etag}}';
export const previousEtagPlaceholder = '{{previous-etag}}';

/** The ETags of the answers so far that carried one: the latest, and the one before it. */
export type EtagsSeen = { readonly latest?: string; readonly previous?: string };

const jsonAnswer = /^application\/json\b/;
const challenge = /^Bearer realm="plant-store"/;

/** A declared case made concrete for its operation: the request it sends, whole. */
export type ResolvedCase = {
  readonly name: string;
  /** The operation of the list it is sent to, by name. */
  readonly operation: string;
  readonly method: string;
  /** `{{id}}` stands for the run's plant id. */
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  /** `{{id}}` stands for the run's plant id, written as a JSON number. Absent: no body. */
  readonly body?: string;
  /** Sent with `Authorization: Bearer <token>`; skipped by a run that has no token. */
  readonly needsToken: boolean;
  /** Sent even after an earlier case could not be sent: it takes away what the run made. */
  readonly always: boolean;
  readonly expected: {
    readonly status: number;
    /** Each named header (lowercase) must be present and match. */
    readonly headers: Readonly<Record<string, RegExp>>;
    readonly body: ExpectedBody;
  };
};

/**
 * An operation's core cases, in order: its sample without a token (which must get 401 with the
 * Bearer challenge), then the cases it declares, each with the headers its kind of answer
 * carries: a JSON content type with a body, and the challenge with a 401.
 */
export function coreCasesOf(operation: Operation): readonly ResolvedCase[] {
  const sample = operation.sample.request(idPlaceholder);
  const withoutToken: CoreCase = {
    name: `a request to ${routeKey(operation)} without a token gets 401 with the Bearer challenge`,
    ...(sample.query === undefined ? {} : { query: sample.query }),
    ...(sample.body === undefined ? {} : { body: sample.body }),
    withoutToken: true,
    expected: { status: 401, body: { kind: 'error' } },
  };
  return [withoutToken, ...operation.preTrafficCases].map((declared) =>
    resolve(operation, declared),
  );
}

function resolve(own: Operation, declared: CoreCase): ResolvedCase {
  const operation = declared.operation === undefined ? own : operationNamed(declared.operation);
  const { body, expected } = declared;
  const path = requestPath(operation, {
    pathParameters: { id: declared.id ?? idPlaceholder },
    ...(declared.query === undefined ? {} : { query: declared.query }),
  }).replaceAll(encodeURIComponent(idPlaceholder), idPlaceholder);
  const headers: Record<string, RegExp> = {};
  if (expected.body.kind !== 'empty') headers['content-type'] = jsonAnswer;
  if (expected.status === 401) headers['www-authenticate'] = challenge;
  return {
    name: declared.name,
    operation: operation.name,
    method: operation.method,
    path,
    headers: {
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...declared.headers,
    },
    ...(body === undefined ? {} : { body }),
    needsToken: declared.withoutToken !== true,
    always: declared.always === true,
    expected: {
      status: expected.status,
      headers: { ...headers, ...expected.headers },
      body: expected.body,
    },
  };
}

export type CaseResult = {
  readonly name: string;
  readonly status: number;
  /** What did not match; empty when the case passed. */
  readonly problems: readonly string[];
};

export type CoreCasesReport = {
  /** At least one case ran, and every case that ran passed. */
  readonly passed: boolean;
  readonly results: readonly CaseResult[];
  /** The cases that need a token, not run because the run had none. */
  readonly skipped: readonly string[];
};

export type RunOptions = {
  /** The run's plant id: a fresh one per run (`freshPlantId`), so a create is never a replay of an earlier run. */
  readonly id: string;
  /** An access token with the cases' scope; without one, the cases that need it are skipped. */
  readonly token?: string;
  readonly cases: readonly ResolvedCase[];
};

/**
 * Sends each case in order and judges its answer. A `send` that throws ends the run with its
 * error, once the cases marked `always` after it are sent: a run that breaks off still takes away
 * what it made.
 */
export async function runCoreCases(send: Send, options: RunOptions): Promise<CoreCasesReport> {
  const { id, token, cases } = options;
  const results: CaseResult[] = [];
  const skipped: string[] = [];
  let etags: EtagsSeen = {};
  let failure: { readonly error: unknown } | undefined;
  for (const testCase of cases) {
    if (failure !== undefined && !testCase.always) continue;
    if (testCase.needsToken && token === undefined) {
      skipped.push(testCase.name);
      continue;
    }
    const request = requestOf(testCase, id, testCase.needsToken ? token : undefined, etags);
    let answer: CoreAnswer;
    try {
      answer = await send(request);
    } catch (error) {
      failure ??= { error };
      continue;
    }
    const etag = headerOf(answer, 'etag');
    if (etag !== undefined && etag !== etags.latest)
      etags = { latest: etag, previous: etags.latest };
    results.push({
      name: testCase.name,
      status: answer.status,
      problems: judge(testCase, answer, id),
    });
  }
  if (failure !== undefined) throw failure.error;
  const passed = results.length > 0 && results.every((result) => result.problems.length === 0);
  return { passed, results, skipped };
}

/** The request a case sends in a run with this id and token. */
export function requestOf(
  testCase: ResolvedCase,
  id: string,
  token?: string,
  etags: EtagsSeen = {},
): CoreRequest {
  const headers = Object.fromEntries(
    Object.entries(testCase.headers).map(([name, value]) => [
      name,
      value
        .replaceAll(etagPlaceholder, etags.latest ?? '')
        .replaceAll(previousEtagPlaceholder, etags.previous ?? ''),
    ]),
  );
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  return {
    operation: testCase.operation,
    method: testCase.method,
    path: testCase.path.replaceAll(idPlaceholder, id),
    headers,
    ...(testCase.body === undefined ? {} : { body: testCase.body.replaceAll(idPlaceholder, id) }),
  };
}

/** Every way the answer differs from what the case expects. */
export function judge(testCase: ResolvedCase, answer: CoreAnswer, id = ''): string[] {
  const { expected } = testCase;
  const problems: string[] = [];
  if (answer.status !== expected.status) {
    problems.push(`status ${answer.status}, expected ${expected.status}`);
  }
  const headers = new Map(
    Object.entries(answer.headers).map(([name, value]) => [name.toLowerCase(), value]),
  );
  for (const [name, pattern] of Object.entries(expected.headers)) {
    const value = headers.get(name);
    if (value === undefined) problems.push(`no ${name} header, expected ${pattern}`);
    else if (!pattern.test(value)) problems.push(`${name} is ${quote(value)}, expected ${pattern}`);
  }
  const problem = bodyProblem(expected.body, answer.body, expected.status, id);
  if (problem !== undefined) problems.push(problem);
  return problems;
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
  switch (expected.kind) {
    case 'error':
      return isErrorShape(body, status)
        ? undefined
        : `body is ${quote(text)}, expected {"error":${status},"message":"…"}`;
    case 'json': {
      const value = JSON.stringify(expected.value).replaceAll(`"${idPlaceholder}"`, id);
      return isDeepStrictEqual(body, JSON.parse(value))
        ? undefined
        : `body is ${quote(text)}, expected ${value}`;
    }
    case 'list':
      return Array.isArray(body) && body.every(isListItem)
        ? undefined
        : `body is ${quote(text)}, expected [{"id":…,"name":"…"},…]`;
  }
}

function isListItem(item: unknown): boolean {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) return false;
  const { id, name } = item as Record<string, unknown>;
  return typeof id === 'number' && typeof name === 'string';
}

function isErrorShape(body: unknown, status: number): boolean {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  const { error, message, ...rest } = body as Record<string, unknown>;
  return (
    error === status &&
    typeof message === 'string' &&
    message.length > 0 &&
    Object.keys(rest).length === 0
  );
}

/** A header of the answer, whatever the case of its name. */
function headerOf(answer: CoreAnswer, name: string): string | undefined {
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
