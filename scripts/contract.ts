// `npm run contract -- --url <api base url> [--token <bearer token>] [--seed N] [--runs N]`: checks
// a running Plant Store API against openapi.yaml itself. Requests are generated from the spec's
// schemas with fast-check (a fixed seed by default, so two runs send the same requests): request
// bodies and path and query parameters, valid and invalid as the spec itself judges them, with
// requests without a token, with a bad token, with the wrong content type, too large, and to routes
// the spec does not list; then a conflict on a plant the run stored, a list walk that follows each
// next link to the last page while plants come and go, the walk's cursors changed, a plant deleted
// and re-created, each operation's sample (functions/<name>/checks.ts) about an id no plant has,
// and each operation's checks, run by the pre-traffic hook's runner. Every answer must be
// documented for its operation (status, headers, body) and be the status the spec gives that
// request. Prints the statuses seen per operation; exit code 1 on any violation, naming the
// request and the answer. Every plant it stores carries the checks' reserved tag, which the webhook
// never delivers, and is deleted by the end of the run through the checks' fixture, whatever failed
// (docs/decisions/0146-check-plants-not-delivered.md).
import { parseArgs } from 'node:util';
import fc from 'fast-check';
import { exactJson, nextLinkTarget, parseExactJson } from '../clients/plant-store-client.ts';
import { checkPlantTag } from '../functions/checks/check.ts';
import {
  type CheckFixture,
  freshPlantId,
  runChecks,
  type Send,
} from '../functions/checks/runner.ts';
import {
  checksOf,
  type Operation as DeclaredOperation,
  operations as declaredOperations,
  operationNamed,
  routeKey,
} from '../functions/operations.ts';
import { apiFixture, checkedBody, sampleHttpRequest, sendHttp } from './check-http.ts';
import {
  type Answer,
  exactIntegerBounds,
  loadOpenApiExchanges,
  type OpenApiExchanges,
  type Operation,
  type Parameter,
  type Route,
} from './openapi-exchange.ts';

/** One request of a run. */
export interface SentRequest {
  /** What the request is, for the report: `a body the spec accepts`, `no token`, ... */
  readonly name: string;
  readonly method: string;
  /** The request target: the path and any query string. */
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string | Uint8Array;
}

/** A generated request, and the statuses the spec gives it. */
export interface ContractCase extends SentRequest {
  readonly expect: readonly number[];
  /** Why those statuses, for the report. */
  readonly why: string;
}

export interface ContractOptions {
  readonly url: string;
  /**
   * A bearer token with every scope the operations require; without one, only what needs no token
   * is sent.
   */
  readonly token?: string | undefined;
  readonly seed: number;
  /** How many requests are generated per operation. */
  readonly runs: number;
  /** The page size of the list walk. */
  readonly walkLimit: number;
  readonly timeoutMs: number;
}

export interface ContractFailure {
  readonly request: SentRequest;
  /** Absent when no answer came. */
  readonly answer?: Answer;
  readonly violations: readonly string[];
}

export interface ContractResult {
  readonly requests: number;
  /** Statuses seen per operation name (or `no route (METHOD /path)`). */
  readonly statuses: ReadonlyMap<string, ReadonlyMap<number, number>>;
  /** The list walk, when one was made: pages answered, plants listed, the run's plants in it. */
  readonly walk?: { readonly pages: number; readonly plants: number; readonly stored: number };
  readonly failures: readonly ContractFailure[];
}

export const defaults = { seed: 19, runs: 120, walkLimit: 10, timeoutMs: 10_000 } as const;

type Json = null | boolean | number | string | bigint | Json[] | { [key: string]: Json };
type Schema = { [keyword: string]: unknown };

/** The routes this check knows by name beyond what the spec's schemas say. */
const listRoute = { method: 'GET', path: '/plants' } as const;
const [createPlant, deletePlant] = [operationNamed('create-plant'), operationNamed('delete-plant')];
/** A walk that has not ended after this many pages is a violation (a link that loops). */
const maxWalkPages = 10_000;
const acceptedBody = 'a body the spec accepts';

/** What the steps of a run share: how to send a request, and how to judge and record its answer. */
interface RunContext {
  readonly spec: OpenApiExchanges;
  readonly options: ContractOptions;
  /** Sends a case and records its answer, with a violation unless its status is expected. */
  readonly run: (contractCase: ContractCase) => Promise<Answer | undefined>;
  /** Sends a request; its answer, or undefined (and a failure) when none came. */
  readonly exchange: (request: SentRequest) => Promise<Answer | undefined>;
  /** Counts the answer's status for its operation; a failure if the spec or `problems` object. */
  readonly record: (request: SentRequest, answer: Answer, problems: readonly string[]) => void;
  readonly failures: ContractFailure[];
  /** The checks' fixture, through the API and recorded as the rest; only with a token. */
  readonly fixture?: CheckFixture;
}

/**
 * Sends the generated cases, then the stateful steps (a conflict, the list walk and its cursors, a
 * plant deleted and created again, every operation's sample), then every operation's checks (run
 * by functions/checks/runner.ts, which judges their answers by its own rules as well), and checks
 * every answer against the spec. Last, even after a step threw, the fixture deletes each plant the
 * run may have stored (`cleanUp`).
 */
export async function runContract(options: ContractOptions): Promise<ContractResult> {
  const spec = await loadOpenApiExchanges();
  const statuses = new Map<string, Map<number, number>>();
  const failures: ContractFailure[] = [];
  let requests = 0;
  /** The ids of the creates sent with a token, and whether each answer says it stored the plant. */
  const created = new Map<string, boolean>();

  const record: RunContext['record'] = (request, answer, problems) => {
    const route: Route = { method: request.method, path: request.path };
    const operation = spec.operationOf(route);
    const row =
      operation === undefined
        ? `no route (${route.method} ${route.path})`
        : `${operation.name} (${route.method} ${operation.template})`;
    const seen = statuses.get(row) ?? new Map<number, number>();
    seen.set(answer.status, (seen.get(answer.status) ?? 0) + 1);
    statuses.set(row, seen);
    const violations = [...spec.checkAnswer(route, answer), ...problems];
    if (violations.length > 0) failures.push({ request, answer, violations });
  };
  const exchange: RunContext['exchange'] = async (request) => {
    requests += 1;
    const id = request.method === 'POST' ? idOfBody(request.body) : undefined;
    try {
      const answer = await sendHttp(options.url, request, options.timeoutMs);
      if (id !== undefined && request.headers.authorization !== undefined) {
        if (answer.status === 200) created.set(id, true);
        else if (answer.status >= 500) created.set(id, created.get(id) ?? false);
      }
      return answer;
    } catch (error) {
      if (id !== undefined && request.headers.authorization !== undefined) {
        created.set(id, created.get(id) ?? false);
      }
      failures.push({ request, violations: [`no answer: ${describeError(error)}`] });
      return undefined;
    }
  };
  const run: RunContext['run'] = async (contractCase) => {
    const answer = await exchange(contractCase);
    if (answer === undefined) return undefined;
    const expected = contractCase.expect.includes(answer.status);
    const why = `expected ${contractCase.expect.join(' or ')} (${contractCase.why})`;
    record(contractCase, answer, expected ? [] : [why]);
    return answer;
  };
  /** The fixture's own requests: recorded, and checked against the spec, as every other. */
  const send: Send = async (request) => {
    const sent = { name: "the check plant, kept by the checks' fixture", ...request };
    const answer = await exchange(sent);
    if (answer === undefined) throw new Error(`no answer to ${request.method} ${request.path}`);
    record(sent, answer, []);
    return answer;
  };
  const fixture = options.token === undefined ? undefined : apiFixture(send, options.token);
  const context = { spec, options, run, exchange, record, failures, fixture };

  let walk: ContractResult['walk'];
  try {
    walk = await runSteps(context);
  } finally {
    // On success and on failure alike: nothing the run stored stays behind.
    if (fixture !== undefined) await cleanUp(created, fixture, context);
  }
  return { requests, statuses, ...(walk === undefined ? {} : { walk }), failures };
}

/** The run's requests in order; the list walk's summary, when one was made. */
async function runSteps(context: RunContext): Promise<ContractResult['walk']> {
  const { spec, options, run, fixture } = context;
  /** The plants this run created (a 200 to a create it sent), by id. */
  const stored = new Map<string, { id: Json; name: Json; tag?: Json }>();
  const created: ContractCase[] = [];
  for (const contractCase of contractCases(spec, options)) {
    const answer = await run(contractCase);
    const authorized = contractCase.headers.authorization !== undefined;
    if (contractCase.name === acceptedBody && authorized && answer?.status === 200) {
      const { id = null } = parseExact(contractCase.body as string) as Record<string, Json>;
      // As the answer has it: the store keeps text in NFC, which the body may not be in.
      const { name = null, tag } = (parseExact(answer.body) ?? {}) as Record<string, Json>;
      stored.set(String(id), { id, name, ...(tag === undefined ? {} : { tag }) });
      created.push(contractCase);
    }
  }

  const [first] = created;
  let walk: ContractResult['walk'];
  if (first !== undefined && fixture !== undefined) {
    const firstPlant = parseExact(first.body as string) as Record<string, Json>;
    const renamed = {
      ...first,
      body: exactJson({
        ...firstPlant,
        name: firstPlant.name === 'Contract check' ? 'Contract check 2' : 'Contract check',
      }),
    };
    // A plant stored under an id, sent again with another name, is the conflict the spec documents.
    await run({
      ...renamed,
      name: 'the id of a stored plant, with another name',
      expect: [409],
      why: 'nothing stored is overwritten',
    });

    const { next, ...summary } = await listWalk(context, stored);
    walk = { ...summary, stored: stored.size };
    if (next !== undefined) {
      for (const cursorCase of cursorCases(next, options)) await run(cursorCase);
    }

    // The first plant deleted (the spec's success), then again (absent: the same answer), then
    // created again under another name, which the delete has freed; the clean-up deletes it.
    const remove = (name: string): ContractCase => ({
      name,
      method: 'DELETE',
      path: `/plants/${firstPlant.id}`,
      headers: { authorization: `Bearer ${options.token}` },
      expect: [204],
      why: 'deleting is idempotent: 204 whether or not the plant is there',
    });
    await run(remove('a plant this run stored'));
    await run(remove('a plant already deleted'));
    await run({
      ...renamed,
      name: 'the id of a deleted plant, with another name',
      expect: [200],
      why: 'a delete frees the id for any plant',
    });
  }

  if (options.token !== undefined) {
    for (const sampleCase of sampleCases(options.token)) await run(sampleCase);
  }
  for (const operation of declaredOperations) await runOperationChecks(operation, context);
  return walk;
}

/** The `id` of a JSON object body, as its exact decimal text. */
function idOfBody(body: string | Uint8Array | undefined): string | undefined {
  if (body === undefined) return undefined;
  const parsed = parseExact(typeof body === 'string' ? body : Buffer.from(body).toString('utf8'));
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return undefined;
  const { id } = parsed;
  return typeof id === 'bigint' || typeof id === 'number' ? String(id) : undefined;
}

/**
 * Deletes, through the fixture, every plant a create of the run stored (`true`), whether or not a
 * later step deleted it already. A create that got no certain answer (none, or a 5xx: `false`)
 * may or may not have stored its plant: that id is read first, and deleted only if it holds a
 * check's plant (its tag `checkPlantTag`), so that the run cannot delete a plant someone else
 * stored under it.
 */
async function cleanUp(
  created: ReadonlyMap<string, boolean>,
  fixture: CheckFixture,
  { exchange, record, failures, options }: RunContext,
): Promise<void> {
  for (const [id, stored] of created) {
    try {
      if (!stored) {
        const read = {
          name: 'a plant this run may have stored, read',
          method: 'GET',
          path: `/plants/${id}`,
          headers: { authorization: `Bearer ${options.token}` },
        };
        const answer = await exchange(read);
        if (answer === undefined) continue;
        record(read, answer, []);
        const plant = answer.status === 200 ? parseExact(answer.body) : undefined;
        if ((plant as { tag?: Json } | undefined)?.tag !== checkPlantTag) continue;
      }
      await fixture.delete(id);
    } catch (error) {
      const request = {
        name: 'the clean-up',
        method: 'DELETE',
        path: `/plants/${id}`,
        headers: {},
      };
      failures.push({ request, violations: [describeError(error)] });
    }
  }
}

/**
 * The operation's checks (`functions/<name>/checks.ts`), run by the checks' runner with an id of
 * their own and the plant kept by the fixture; the runner judges each answer itself, so each is
 * recorded, with what it found, once the run is over.
 */
async function runOperationChecks(
  operation: DeclaredOperation,
  context: RunContext,
): Promise<void> {
  const { exchange, record, failures, fixture, options } = context;
  const answered: { request: SentRequest; answer: Answer }[] = [];
  const send: Send = async (request) => {
    const sent = { name: 'check', ...request };
    const answer = await exchange(sent);
    if (answer === undefined) throw new Error(`no answer to ${request.method} ${request.path}`);
    answered.push({ request: sent, answer });
    return answer;
  };
  const report = await runChecks(operation, checksOf(operation), {
    send,
    ...(fixture === undefined ? {} : { fixture }),
    id: freshPlantId(),
    token: options.token,
  });
  for (const [index, { name, problems }] of report.results.entries()) {
    const { request, answer } = answered[index] ?? {};
    if (request !== undefined && answer !== undefined) {
      record({ ...request, name: `check: ${name}` }, answer, problems);
    }
  }
  if ('error' in report) {
    const { method, path } = operation;
    const request = { name: `the checks of ${routeKey(operation)}`, method, path, headers: {} };
    failures.push({ request, violations: [describeError(report.error)] });
  }
}

/**
 * Every operation's sample (`sample` in its checks), each about a fresh id of its own that no
 * plant has, expecting the status the operation declares for it. A plant a sample stores is the
 * run's, and deleted by the clean-up with the rest.
 */
export function sampleCases(token: string): ContractCase[] {
  return declaredOperations.map(
    (operation): ContractCase => ({
      name: `the sample of ${routeKey(operation)}, about an id no plant has`,
      ...sampleHttpRequest(operation, freshPlantId(), token),
      expect: [checksOf(operation).sample.status],
      why: `the status ${operation.name} declares for its sample`,
    }),
  );
}

/**
 * Follows the list's next links from the first page (`limit` = `walkLimit`) to the last, creating
 * a fresh plant and deleting the one before it between pages (the clean-up deletes the last). Each page must be
 * a 200 whose next link goes on with the same limit; the walk must end; no id may appear twice;
 * and each plant the run stored, present throughout, must appear exactly once, as stored. Returns
 * the first next link, for the cursor cases, and how far the walk went.
 */
async function listWalk(
  { options, run, exchange, record, failures }: RunContext,
  stored: ReadonlyMap<string, { id: Json; name: Json; tag?: Json }>,
): Promise<{ next: string | undefined; pages: number; plants: number }> {
  const auth = { authorization: `Bearer ${options.token}` };
  const start = `${listRoute.path}?limit=${options.walkLimit}`;
  const seen = new Map<string, Json[]>();
  const targets = new Set<string>();
  let firstNext: string | undefined;
  let churn: string | undefined;
  let target: string | undefined = start;
  let pages = 0;
  for (let page = 1; target !== undefined; page += 1) {
    const request = {
      name: `list walk, page ${page}`,
      ...listRoute,
      path: target,
      headers: auth,
    };
    const answer = await exchange(request);
    if (answer === undefined) break;
    pages = page;
    const problems: string[] = [];
    let next: string | undefined;
    if (answer.status !== 200) {
      problems.push('expected 200 (a next link, followed as given, lists the next page)');
    } else {
      const items = parseExact(answer.body);
      for (const item of Array.isArray(items) ? (items as Record<string, Json>[]) : []) {
        const key = String(item.id);
        seen.set(key, [...(seen.get(key) ?? []), item]);
      }
      next = nextLinkTarget(answer.headers.link ?? null);
      if (next !== undefined) {
        const url = new URL(next, 'http://next.invalid/');
        if (
          url.pathname !== listRoute.path ||
          url.searchParams.get('limit') !== String(options.walkLimit)
        ) {
          problems.push(
            `the next link ${next} does not go on with ${listRoute.path}?limit=${options.walkLimit}`,
          );
        }
        if (targets.has(next)) {
          problems.push(`the next link ${next} was followed before: the walk loops`);
        }
        if (page >= maxWalkPages) problems.push(`the walk has not ended after ${page} pages`);
      }
    }
    record(request, answer, problems);
    if (problems.length > 0 || next === undefined) break;
    targets.add(next);
    firstNext ??= next;
    // Plants come and go while the walk goes on; those present throughout are checked below.
    const fresh = freshPlantId();
    await run({
      name: 'a plant created during the list walk',
      ...sampleHttpRequest(createPlant, fresh, options.token),
      expect: [200],
      why: 'a fresh id',
    });
    if (churn !== undefined) {
      await run({
        name: 'a plant deleted during the list walk',
        ...sampleHttpRequest(deletePlant, churn, options.token),
        expect: [204],
        why: 'deleting is idempotent',
      });
    }
    churn = fresh;
    target = next;
  }
  const violations: string[] = [];
  for (const [id, plant] of stored) {
    const listed = seen.get(id) ?? [];
    if (listed.length !== 1) {
      violations.push(`plant ${id}, stored before the walk, is listed ${listed.length} times`);
    } else if (exactJson(listed[0]) !== exactJson(plant)) {
      violations.push(
        `plant ${id} is listed as ${exactJson(listed[0])}, stored as ${exactJson(plant)}`,
      );
    }
  }
  for (const [id, listed] of seen) {
    if (listed.length > 1 && !stored.has(id)) {
      violations.push(`plant ${id} is listed ${listed.length} times`);
    }
  }
  if (violations.length > 0) {
    failures.push({
      request: { name: 'list walk', ...listRoute, path: start, headers: auth },
      violations,
    });
  }
  const plants = [...seen.values()].reduce((sum, listed) => sum + listed.length, 0);
  return { next: firstNext, pages, plants };
}

/** A next link as given, and its cursor cut short, changed, and sent with another limit. */
function cursorCases(next: string, options: ContractOptions): ContractCase[] {
  const url = new URL(next, 'http://next.invalid/');
  const cursor = url.searchParams.get('cursor') ?? '';
  const limit = Number(url.searchParams.get('limit'));
  const headers = { authorization: `Bearer ${options.token}` };
  const target = (query: Record<string, string>) =>
    `${url.pathname}?${new URLSearchParams(query).toString()}`;
  const changed = `${cursor.slice(0, -1)}${cursor.endsWith('A') ? 'B' : 'A'}`;
  const refused = {
    method: 'GET',
    headers,
    expect: [400],
    why: 'a cursor the API did not issue for this limit (x-issued-in-link)',
  } as const;
  return [
    {
      name: 'a next link, followed again',
      method: 'GET',
      path: `${url.pathname}${url.search}`,
      headers,
      expect: [200],
      why: 'a cursor as the API issued it',
    },
    {
      ...refused,
      name: 'a cursor cut short',
      path: target({ limit: String(limit), cursor: cursor.slice(0, -1) }),
    },
    {
      ...refused,
      name: 'a cursor changed',
      path: target({ limit: String(limit), cursor: changed }),
    },
    {
      ...refused,
      name: 'a cursor with another limit',
      path: target({ limit: String(limit === 1 ? 2 : limit - 1), cursor }),
    },
  ];
}

/**
 * The cases of one run, per operation: generated bodies (for an operation with a JSON body) or
 * generated parameters (for one with none), requests without a valid token, and for a body the
 * wrong content type and one byte too many; then routes the spec does not list.
 */
export function contractCases(spec: OpenApiExchanges, options: ContractOptions): ContractCase[] {
  const cases: ContractCase[] = [];
  const { token } = options;
  for (const operation of operations(spec)) {
    const { method } = operation.route;
    const schema = spec.requestBodySchema(operation);
    const secured = isSecured(spec, operation);
    const success = documentedSuccess(operation);
    const fromState = documentedStateStatuses(operation);
    const parameters = requestParameters(spec, operation);
    const validTarget = fc
      .sample(parameterTarget(operation, parameters, spec, 'valid'), {
        seed: options.seed,
        numRuns: 100,
      })
      .find((target) => spec.acceptsParameters(operation, target.path) && !target.madeUp);
    if (validTarget === undefined) {
      throw new Error(`no parameters the spec accepts for ${operation.name}`);
    }
    const path = validTarget.path;
    const validBody =
      schema === undefined
        ? undefined
        : fc
            .sample(describedValue(schema, spec).map(exactJson), {
              seed: options.seed,
              numRuns: 100,
            })
            .map(checkedBody)
            .find((body) => spec.acceptsBody(operation, body));
    if (schema !== undefined && validBody === undefined) {
      throw new Error(`no body the spec accepts for ${operation.name}`);
    }
    /**
     * A body sent with a token carries the checks' tag (`checkedBody`), unless that would change
     * whether the spec accepts it (a body refused for its tag alone stays as it is): a plant it
     * stores is the run's own, and never reaches the webhook's subscriber.
     */
    const checked = (body: string, accepted: boolean) => {
      const marked = checkedBody(body);
      return spec.acceptsBody(operation, marked) === accepted ? marked : body;
    };
    const headersOf = (withToken?: string): Record<string, string> =>
      schema === undefined ? authorization(withToken) : jsonHeaders(withToken);
    const noToken = { expect: [401], why: 'no token, whatever the request' } as const;

    if (schema !== undefined) {
      const bodies = fc.sample(bodyText(schema, spec), {
        seed: options.seed,
        numRuns: options.runs,
      });
      for (const generated of bodies) {
        const unchecked = withPathId(operation.route.path, path, generated);
        const accepted = spec.acceptsBody(operation, unchecked);
        const body = secured && token === undefined ? unchecked : checked(unchecked, accepted);
        const sent = {
          name: accepted ? acceptedBody : 'a body the spec refuses',
          method,
          path,
          body,
        };
        if (secured && token === undefined) {
          cases.push({ ...sent, headers: headersOf(), ...noToken });
        } else if (accepted) {
          const why = `the spec accepts this body; ${fromState.join(' or ')} from what is stored`;
          cases.push({
            ...sent,
            headers: headersOf(token),
            expect: [...success, ...fromState],
            why,
          });
        } else {
          cases.push({
            ...sent,
            headers: headersOf(token),
            expect: [400],
            why: 'the spec refuses this body',
          });
        }
      }
    } else if (parameters.length > 0) {
      const targets = fc.sample(parameterTarget(operation, parameters, spec, 'any'), {
        seed: options.seed,
        numRuns: options.runs,
      });
      for (const target of targets) {
        const accepted = spec.acceptsParameters(operation, target.path);
        const name = target.madeUp
          ? 'a value the API did not issue'
          : accepted
            ? 'parameters the spec accepts'
            : 'parameters the spec refuses';
        const sent = { name, method, path: target.path };
        if (secured && token === undefined) {
          cases.push({ ...sent, headers: headersOf(), ...noToken });
        } else if (target.madeUp) {
          const why = 'only values the API issued in a next link are accepted (x-issued-in-link)';
          cases.push({ ...sent, headers: headersOf(token), expect: [400], why });
        } else if (accepted) {
          const why = 'the spec accepts these parameters';
          cases.push({
            ...sent,
            headers: headersOf(token),
            expect: [...success, ...fromState],
            why,
          });
        } else {
          cases.push({
            ...sent,
            headers: headersOf(token),
            expect: [400],
            why: 'the spec refuses these parameters',
          });
        }
      }
    }

    if (secured) {
      const unauthenticated = {
        method,
        path,
        ...(validBody === undefined ? {} : { body: validBody }),
        expect: [401],
        why: 'the operation needs a bearer token',
      } as const;
      cases.push(
        { ...unauthenticated, name: 'no token', headers: headersOf() },
        {
          ...unauthenticated,
          name: 'a token that is not a JWT',
          headers: { ...headersOf(), authorization: 'Bearer not-a-token' },
        },
        {
          ...unauthenticated,
          name: 'an unsigned token',
          headers: { ...headersOf(), authorization: `Bearer ${unsignedToken}` },
        },
        {
          ...unauthenticated,
          name: 'another scheme',
          headers: { ...headersOf(), authorization: 'Basic Zm9vOmJhcg==' },
        },
      );
    }
    if (validBody !== undefined && (!secured || token !== undefined)) {
      const authorized = jsonHeaders(token);
      const maxBytes = Number((resolvedRequestBody(spec, operation) as Schema)['x-max-body-bytes']);
      cases.push(
        {
          name: 'text/plain',
          method,
          path,
          headers: { ...authorized, 'content-type': 'text/plain' },
          body: validBody,
          expect: [415],
          why: 'the spec documents only application/json',
        },
        {
          name: 'no content type',
          method,
          path,
          headers: withoutContentType(authorized),
          body: validBody,
          expect: [415],
          why: 'the spec documents only application/json',
        },
      );
      if (Number.isInteger(maxBytes)) {
        cases.push({
          name: `a body of ${maxBytes + 1} bytes`,
          method,
          path,
          headers: authorized,
          body: padded(validBody, maxBytes + 1),
          expect: [413],
          why: `x-max-body-bytes is ${maxBytes}`,
        });
      }
    }
  }

  const unmatched = Object.keys((spec.document['x-unmatched-route-responses'] ?? {}) as Schema).map(
    Number,
  );
  for (const route of unmatchedRoutes(spec)) {
    cases.push({
      name: 'a route the spec does not list',
      ...route,
      headers: jsonHeaders(token),
      expect: unmatched,
      why: 'x-unmatched-route-responses',
    });
  }
  return cases;
}

/**
 * JSON.parse, except that an integer a double cannot hold exactly stays exact, as a bigint;
 * `undefined` for text that is not JSON.
 */
function parseExact(text: string): Json | undefined {
  try {
    return parseExactJson(text) as Json;
  } catch {
    // An answer that is not JSON is reported by the spec's check of it.
    return undefined;
  }
}

function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? ` (${error.cause.message})` : '';
  return `${error.name}: ${error.message}${cause}`;
}

/** A JWT with `alg: none`: well formed, signed by nobody. */
const unsignedToken = `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${Buffer.from('{"sub":"contract-check","scope":"plants/write plants/read"}').toString('base64url')}.`;

function authorization(token?: string): Record<string, string> {
  return token === undefined ? {} : { authorization: `Bearer ${token}` };
}

function jsonHeaders(token?: string): Record<string, string> {
  return { 'content-type': 'application/json', ...authorization(token) };
}

function withoutContentType({ 'content-type': _, ...headers }: Record<string, string>) {
  return headers;
}

/** A JSON object body grown to exactly `bytes` bytes with a member the spec ignores. */
function padded(body: string, bytes: number): Uint8Array {
  const head = `${body.slice(0, -1)},"padding":"`;
  const padding = bytes - Buffer.byteLength(head) - 2;
  return Buffer.from(`${head}${'x'.repeat(Math.max(0, padding))}"}`);
}

function operations(spec: OpenApiExchanges): (Operation & { route: Route })[] {
  const found: (Operation & { route: Route })[] = [];
  for (const [path, item] of Object.entries((spec.document.paths ?? {}) as Schema)) {
    for (const method of Object.keys(item as Schema)) {
      const route = { method: method.toUpperCase(), path };
      const operation = spec.operationOf(route);
      if (operation !== undefined) found.push({ ...operation, route });
    }
  }
  return found;
}

/** Every method each listed path does not have, and a path the spec does not list. */
function unmatchedRoutes(spec: OpenApiExchanges): Route[] {
  const routes: Route[] = [];
  for (const [path, item] of Object.entries((spec.document.paths ?? {}) as Schema)) {
    // A template's parameters stand for any value: `1` is one.
    const concrete = path.replaceAll(/\{[^}/]+\}/g, '1');
    for (const method of ['get', 'post', 'put', 'patch', 'delete']) {
      if (!Object.hasOwn(item as Schema, method)) {
        routes.push({ method: method.toUpperCase(), path: concrete });
      }
    }
  }
  routes.push({ method: 'GET', path: '/contract-check/no-such-route' });
  return routes;
}

function isSecured(spec: OpenApiExchanges, operation: Operation): boolean {
  const security = (operation.definition.security ?? spec.document.security ?? []) as Schema[];
  // `{}` in the list makes the operation callable without credentials.
  return (
    security.length > 0 && security.every((requirement) => Object.keys(requirement).length > 0)
  );
}

function documentedSuccess(operation: Operation): number[] {
  return Object.keys((operation.definition.responses ?? {}) as Schema)
    .filter((key) => /^2\d\d$/.test(key))
    .map(Number);
}

/**
 * The statuses a request the spec accepts may still get from what is stored, not from itself,
 * as the operation documents them: no plant has the id (404), a different one has it (409).
 */
function documentedStateStatuses(operation: Operation): number[] {
  const documented = Object.keys((operation.definition.responses ?? {}) as Schema).map(Number);
  return [404, 409].filter((status) => documented.includes(status));
}

/**
 * A generated body about the plant a path names carries that plant's id, when it carries one:
 * the spec's schema cannot say that the two must agree, and the operation's 400 says so.
 */
function withPathId(routePath: string, path: string, body: string): string {
  if (!routePath.endsWith('/{id}')) return body;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return body;
  }
  if (typeof parsed !== 'object' || parsed === null || !('id' in parsed)) return body;
  const id = decodeURIComponent(path.split('/').at(-1) ?? '');
  const raw = (JSON as unknown as { rawJSON(text: string): unknown }).rawJSON(id);
  return JSON.stringify({ ...parsed, id: raw });
}

function resolvedRequestBody(spec: OpenApiExchanges, operation: Operation) {
  return spec.resolve((operation.definition.requestBody ?? null) as never, '').value ?? {};
}

// --- Bodies from schemas -------------------------------------------------------------------------

/**
 * Units of text a client may send: any grapheme, and the kinds of text where a schema and a
 * service part ways: combining marks, characters that NFC turns into two or three code points,
 * characters beyond U+FFFF, emoji and Persian joiner sequences.
 */
const writtenUnit = fc.oneof(
  { weight: 6, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }) },
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      'e\u0301',
      '\u0958',
      '\uFB2C',
      '\u{1D160}',
      '\u1E17\u0323',
      '\u{1F33F}',
      '\u{1F469}\u{1F3FD}\u200D\u{1F4BB}',
      '\u0645\u06CC\u200C\u062E',
      'Fern',
    ),
  },
);
/** Characters a careful text schema refuses: controls, bidi and zero-width characters, separators. */
const suspectUnit = fc.constantFrom(
  '\n',
  '\t',
  '\u0000',
  '\u007F',
  '\u202E',
  '\u200B',
  '\u2066',
  '\uFEFF',
  '\u2028',
  '\uD800',
  '\u200D',
);

function textOf(min: number, max: number, unit: fc.Arbitrary<string>): fc.Arbitrary<string> {
  const short = Math.min(max, min + 12);
  return fc
    .oneof(fc.integer({ min, max: short }), fc.integer({ min: Math.max(min, max - 4), max }))
    .chain((length) =>
      fc
        .array(unit, { minLength: length, maxLength: length })
        .map((units) => [...units.join('')].slice(0, length).join('')),
    );
}

/** A value the schema describes, built from its keywords; the spec itself then judges it. */
function describedValue(schema: Schema, spec: OpenApiExchanges): fc.Arbitrary<Json> {
  const resolved = merged(schema, spec);
  switch (resolved.type) {
    case 'object': {
      const properties = (resolved.properties ?? {}) as Record<string, Schema>;
      const required = new Set((resolved.required ?? []) as string[]);
      const members = Object.fromEntries(
        Object.entries(properties).map(([name, property]) => [
          name,
          describedValue(property, spec),
        ]),
      );
      const requiredKeys = Object.keys(properties).filter((name) => required.has(name));
      const record = fc.record(members, { requiredKeys });
      if (resolved.additionalProperties === false) return record;
      return fc
        .tuple(record, extraMembers(Object.keys(properties)))
        .map(([own, extra]) => ({ ...extra, ...own }));
    }
    case 'string': {
      const min = Number(resolved.minLength ?? 0);
      const max = Number(resolved.maxLength ?? min + 40);
      return textOf(min, max, writtenUnit);
    }
    case 'integer': {
      const [min, max] = integerBounds(resolved);
      return fc
        .oneof(fc.bigInt({ min, max }), fc.constantFrom(min, max, 0n, 2n ** 53n + 1n))
        .map((value) => value);
    }
    case 'number':
      return fc.double({ noNaN: true, noDefaultInfinity: true });
    case 'boolean':
      return fc.boolean();
    default:
      return fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Json>;
  }
}

/** A value that breaks one of the schema's rules, or a nested one's. */
function brokenValue(schema: Schema, spec: OpenApiExchanges): fc.Arbitrary<Json> {
  const resolved = merged(schema, spec);
  const wrongType = fc.constantFrom<Json>(null, true, 1.5, 'text', [], {});
  switch (resolved.type) {
    case 'object': {
      const properties = (resolved.properties ?? {}) as Record<string, Schema>;
      const names = Object.keys(properties);
      if (names.length === 0) return wrongType;
      return fc
        .tuple(describedValue(schema, spec), fc.constantFrom(...names), fc.boolean())
        .chain(([value, name, drop]) => {
          const object = value as Record<string, Json>;
          if (drop) {
            const { [name]: _, ...rest } = object;
            return fc.constant(rest as Json);
          }
          return brokenValue(properties[name] ?? {}, spec).map((broken) => ({
            ...object,
            [name]: broken,
          }));
        });
    }
    case 'string': {
      const min = Number(resolved.minLength ?? 0);
      const max = Number(resolved.maxLength ?? min + 40);
      const breaks: fc.Arbitrary<Json>[] = [
        wrongType,
        textOf(max + 1, max + 6, writtenUnit),
        fc
          .tuple(textOf(min, max, writtenUnit), suspectUnit, fc.nat())
          .map(([text, suspect, at]) => {
            const units = [...text];
            units.splice(at % (units.length + 1), 0, suspect);
            return units.join('');
          }),
      ];
      if (min > 0) breaks.push(fc.constant(''));
      return fc.oneof(...breaks);
    }
    case 'integer': {
      const [min, max] = integerBounds(resolved);
      // Far enough outside that a double, which a JavaScript validator reads it as, is outside too.
      return fc.oneof(
        wrongType,
        fc.bigInt({ min: max * 2n + 2n, max: max * 8n }),
        fc.bigInt({ min: min * 8n, max: min * 2n - 2n }),
        fc.double({ min: -1e6, max: 1e6, noNaN: true }).filter((value) => !Number.isInteger(value)),
      );
    }
    default:
      return wrongType;
  }
}

/** Request body texts: objects the schema describes, objects that break it, other JSON, no JSON. */
function bodyText(schema: Schema, spec: OpenApiExchanges): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 5, arbitrary: describedValue(schema, spec).map(exactJson) },
    { weight: 4, arbitrary: brokenValue(schema, spec).map(exactJson) },
    {
      weight: 1,
      arbitrary: fc.constantFrom('[]', '"plant"', '12', 'null', '{"id":1,', '', '{"name":"Fern"}}'),
    },
  );
}

/** Members a schema leaves open, named unlike its own. */
function extraMembers(own: string[]): fc.Arbitrary<Record<string, Json>> {
  // `__proto__` and `constructor` are left out: the service refuses them on purpose, as the
  // operation's description says and its schema does not.
  const key = fc
    .string({ minLength: 1, maxLength: 8 })
    .filter((name) => !own.includes(name) && name !== '__proto__' && name !== 'constructor');
  const value = fc.oneof(
    fc.string({ maxLength: 8 }),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
  );
  return fc.dictionary(key, value, { maxKeys: 2 }) as fc.Arbitrary<Record<string, Json>>;
}

function integerBounds(schema: Schema): [bigint, bigint] {
  const [lowest, highest] = exactIntegerBounds[String(schema.format)] ?? [
    BigInt(Number.MIN_SAFE_INTEGER),
    BigInt(Number.MAX_SAFE_INTEGER),
  ];
  // A bound the document spells as a JSON number may have been rounded: the format's is exact.
  const min = typeof schema.minimum === 'number' ? BigInt(schema.minimum) : lowest;
  const max = typeof schema.maximum === 'number' ? BigInt(schema.maximum) : highest;
  return [min > lowest ? min : lowest, max < highest ? max : highest];
}

/** The schema with `$ref`s followed and `allOf` object parts merged into one object schema. */
function merged(schema: Schema, spec: OpenApiExchanges): Schema {
  const resolved = spec.resolve(schema as never, '').value as Schema;
  if (!Array.isArray(resolved.allOf)) return resolved;
  const parts = (resolved.allOf as Schema[]).map((part) => merged(part, spec));
  return {
    type: 'object',
    properties: Object.assign({}, ...parts.map((part) => part.properties ?? {})),
    required: parts.flatMap((part) => (part.required ?? []) as string[]),
  };
}

// --- Parameters from schemas --------------------------------------------------------------------

/** The parameters a request names in its target: the path's and the query's. */
function requestParameters(spec: OpenApiExchanges, operation: Operation): Parameter[] {
  return spec
    .parameters(operation)
    .filter(({ in: where }) => where === 'path' || where === 'query');
}

/** A parameter's texts in one request (none: left out; two: given twice), and whether made up. */
type ParameterTexts = { readonly texts: readonly string[]; readonly madeUp: boolean };

/**
 * Request targets for an operation: its path with each path parameter filled in and a query of
 * its query parameters, each left out, valid, broken, or given twice (`any`), or only the first
 * two (`valid`). A value of a parameter marked `x-issued-in-link` is one only the API issues: a
 * made-up one is flagged, and a valid request leaves it out.
 */
function parameterTarget(
  operation: Operation & { route: Route },
  parameters: readonly Parameter[],
  spec: OpenApiExchanges,
  mode: 'valid' | 'any',
): fc.Arbitrary<{ path: string; madeUp: boolean }> {
  // A valid value sent to an operation that changes what it names is a fresh one: the check must
  // not delete a plant someone else stored under a well-known id (0, the int64 bounds).
  const changes = !['GET', 'HEAD', 'POST'].includes(operation.route.method);
  const members = Object.fromEntries(
    parameters.map((parameter) => [
      `${parameter.in} ${parameter.name}`,
      parameterTexts(parameter, spec, mode, changes),
    ]),
  );
  return fc.record(members).map((chosen) => {
    let path = operation.template;
    const query: string[] = [];
    let madeUp = false;
    for (const parameter of parameters) {
      const { texts, madeUp: invented } = chosen[`${parameter.in} ${parameter.name}`] ?? {
        texts: [],
        madeUp: false,
      };
      madeUp ||= invented;
      if (parameter.in === 'path') {
        path = path.replace(`{${parameter.name}}`, encodeURIComponent(texts[0] ?? ''));
      } else {
        for (const text of texts) {
          query.push(`${encodeURIComponent(parameter.name)}=${encodeURIComponent(text)}`);
        }
      }
    }
    return { path: query.length === 0 ? path : `${path}?${query.join('&')}`, madeUp };
  });
}

function parameterTexts(
  parameter: Parameter,
  spec: OpenApiExchanges,
  mode: 'valid' | 'any',
  fresh: boolean,
): fc.Arbitrary<ParameterTexts> {
  const absent = fc.constant<ParameterTexts>({ texts: [], madeUp: false });
  const one = (text: fc.Arbitrary<string>, madeUp = false) =>
    text.map((value): ParameterTexts => ({ texts: [value], madeUp }));
  if (parameter.definition['x-issued-in-link'] !== undefined) {
    if (mode === 'valid') return absent;
    const madeUp = fc.oneof(
      fc.string({ maxLength: 60 }),
      fc.stringMatching(/^[A-Za-z0-9_-]{39}$/),
      fc.constant(''),
    );
    return fc.oneof({ weight: 2, arbitrary: absent }, { weight: 1, arbitrary: one(madeUp, true) });
  }
  const valid = validText(parameter.schema, spec, fresh);
  const leftOut = parameter.required ? [] : [{ weight: 2, arbitrary: absent }];
  if (mode === 'valid') return fc.oneof(...leftOut, { weight: 3, arbitrary: one(valid) });
  const broken = brokenText(parameter.schema, spec, parameter.in === 'path');
  return fc.oneof(
    ...leftOut,
    { weight: 3, arbitrary: one(valid) },
    ...(broken === undefined ? [] : [{ weight: 3, arbitrary: one(broken) }]),
    ...(parameter.in === 'query'
      ? [
          {
            weight: 1,
            arbitrary: fc
              .tuple(valid, valid)
              .map(([a, b]): ParameterTexts => ({ texts: [a, b], madeUp: false })),
          },
        ]
      : []),
  );
}

/** The text of a value the schema accepts, as OpenAPI writes a primitive parameter. */
function validText(schema: Schema, spec: OpenApiExchanges, fresh: boolean): fc.Arbitrary<string> {
  const resolved = merged(schema, spec);
  if (resolved.type !== 'integer') {
    return describedValue(schema, spec).map((value) =>
      typeof value === 'string' ? value : exactJson(value),
    );
  }
  const [min, max] = integerBounds(resolved);
  // Unbiased: fast-check otherwise favours values near 0 and the bounds, ids others may hold.
  const random = fc.noBias(fc.bigInt({ min, max }));
  return (fresh ? random : fc.oneof(random, fc.constantFrom(min, max))).map(String);
}

/**
 * The text of no value the schema accepts: for an integer, one outside its bounds or its format's,
 * a valid one spelt otherwise than canonically (`01`, `+1`, `1.0`, `1e0`, ` 1`, `-0`), or no
 * integer at all (nor, outside a path, where it would be another route, an empty one).
 */
function brokenText(
  schema: Schema,
  spec: OpenApiExchanges,
  inPath: boolean,
): fc.Arbitrary<string> | undefined {
  const resolved = merged(schema, spec);
  if (resolved.type === 'string') {
    const breaks: fc.Arbitrary<string>[] = [];
    if (Number(resolved.minLength ?? 0) > 0 && !inPath) breaks.push(fc.constant(''));
    if (typeof resolved.maxLength === 'number') {
      breaks.push(fc.constant('x'.repeat(resolved.maxLength + 1)));
    }
    return breaks.length === 0 ? undefined : fc.oneof(...breaks);
  }
  if (resolved.type !== 'integer') return undefined;
  const [min, max] = integerBounds(resolved);
  const [lowest, highest] = exactIntegerBounds[String(resolved.format)] ?? [min, max];
  const span = max - min + 8n;
  const notAnInteger = [
    'abc',
    'true',
    'null',
    '1.5',
    '-1.5',
    '0x10',
    '1,2',
    ...(inPath ? [] : ['']),
  ];
  return fc.oneof(
    fc.bigInt({ min: max + 1n, max: max + span }).map(String),
    fc.bigInt({ min: min - span, max: min - 1n }).map(String),
    fc.constantFrom(highest + 1n, lowest - 1n).map(String),
    fc
      .tuple(validText(schema, spec, true), fc.constantFrom('0%s', '+%s', '%s.0', '%se0', ' %s'))
      .map(([text, spelling]) => spelling.replace('%s', text)),
    fc.constantFrom('-0', ...notAnInteger),
  );
}

// --- HTTP and the report -------------------------------------------------------------------------

/** The statuses seen per operation, as a table. */
export function statusTable(statuses: ContractResult['statuses']): string {
  const columns = [...new Set([...statuses.values()].flatMap((seen) => [...seen.keys()]))].sort();
  const rows = [...statuses.keys()];
  const width = Math.max('operation'.length, ...rows.map((row) => row.length));
  const line = (name: string, cells: string[]) =>
    `${name.padEnd(width)}  ${cells.map((cell) => cell.padStart(5)).join('')}`.trimEnd();
  return [
    line('operation', columns.map(String)),
    ...rows.map((row) =>
      line(
        row,
        columns.map((status) => String(statuses.get(row)?.get(status) ?? '')),
      ),
    ),
  ].join('\n');
}

/** A request or answer body, short and with every invisible character visible. */
function excerpt(body: string | Uint8Array | undefined): string {
  if (body === undefined || body.length === 0) return '(no body)';
  const text = typeof body === 'string' ? body : Buffer.from(body).toString('utf8');
  const characters = [...text];
  const shown = JSON.stringify(
    characters.length > 240 ? `${characters.slice(0, 240).join('')}...` : text,
  );
  return `${shown} (${Buffer.byteLength(text)} bytes)`;
}

/** What `npm run contract` prints of a run: the status table, the walk, then PASS or each FAIL. */
export function contractReport(result: ContractResult): string {
  const lines = [statusTable(result.statuses), ''];
  if (result.walk !== undefined) {
    const { pages, plants, stored } = result.walk;
    lines.push(
      `List walk: ${pages} pages, ${plants} plants, each of the ${stored} this run stored once as stored`,
      '',
    );
  }
  if (result.failures.length === 0) {
    lines.push(
      `PASS all ${result.requests} answers are documented and are the statuses the spec gives their requests`,
    );
    return lines.join('\n');
  }
  for (const { request, answer, violations } of result.failures) {
    lines.push(`FAIL ${request.method} ${request.path} (${request.name})`);
    const auth = request.headers.authorization ? 'with Authorization' : 'without Authorization';
    const type = request.headers['content-type'] ?? '(none)';
    lines.push(`  request: content-type ${type}, ${auth}, body ${excerpt(request.body)}`);
    if (answer !== undefined) {
      const answerType = answer.headers['content-type'] ?? '(none)';
      lines.push(
        `  answer:  ${answer.status}, content-type ${answerType}, body ${excerpt(answer.body)}`,
      );
    }
    for (const violation of violations) lines.push(`  - ${violation}`);
  }
  lines.push(`FAIL ${result.failures.length} of ${result.requests} requests`);
  return lines.join('\n');
}

const usage =
  'Usage: npm run contract -- --url <api base url> [--token <bearer token>] [--seed N] [--runs N] [--walk-limit N]\n' +
  '  e.g. npm run contract -- --url http://127.0.0.1:3000 --token "$(npm run -s token)"';

function parseCommandLine(): ContractOptions {
  const { values } = parseArgs({
    options: {
      url: { type: 'string' },
      token: { type: 'string' },
      seed: { type: 'string', default: String(defaults.seed) },
      runs: { type: 'string', default: String(defaults.runs) },
      'walk-limit': { type: 'string', default: String(defaults.walkLimit) },
      timeout: { type: 'string', default: String(defaults.timeoutMs) },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(usage);
    process.exit(0);
  }
  const [seed, runs, walkLimit, timeoutMs] = [
    Number(values.seed),
    Number(values.runs),
    Number(values['walk-limit']),
    Number(values.timeout),
  ];
  if (
    !values.url ||
    !URL.canParse(values.url) ||
    !Number.isInteger(seed) ||
    !Number.isInteger(runs) ||
    runs < 0 ||
    !Number.isInteger(walkLimit) ||
    walkLimit < 1 ||
    !(timeoutMs > 0)
  ) {
    console.error(usage);
    process.exit(2);
  }
  return {
    url: values.url,
    token: values.token?.trim() || undefined,
    seed,
    runs,
    walkLimit,
    timeoutMs,
  };
}

if (import.meta.main) {
  const options = parseCommandLine();
  console.log(
    `Contract check of ${options.url} against openapi.yaml (seed ${options.seed}, ${options.runs} generated requests per operation` +
      `${options.token ? '' : '; no --token: only requests that need none'})\n`,
  );
  const result = await runContract(options);
  console.log(contractReport(result));
  process.exitCode = result.failures.length === 0 ? 0 : 1;
}
