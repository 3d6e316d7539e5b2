// `npm run contract`: a running API against openapi.yaml (docs/local-development.md). Its plants
// are tagged and deleted whatever fails (docs/decisions/0146-check-plants-not-delivered.md).
import { parseArgs } from 'node:util';
import fc from 'fast-check';
import { exactJson, nextLinkTarget } from '../clients/plant-store-client.ts';
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
import {
  apiFixture,
  bearer,
  checkedBody,
  describeError,
  exitOnUsage,
  type HttpRequest,
  parseExact,
  sampleHttpRequest,
  sendHttp,
} from './check-http.ts';
import {
  type Answer,
  loadOpenApiExchanges,
  type OpenApiExchanges,
  type Operation,
  type Route,
} from './openapi-exchange.ts';
import {
  bodyText,
  describedValue,
  type Json,
  parameterTarget,
  requestParameters,
  type Schema,
} from './schema-arbitraries.ts';

type SentRequest = HttpRequest & { readonly name: string };
type ContractCase = SentRequest & { readonly expect: readonly number[]; readonly why: string };
type Failure = { request: SentRequest; answer?: Answer; violations: readonly string[] };

export interface ContractOptions {
  readonly url: string;
  /** Needs every scope; without one, only what needs no token is sent. */
  readonly token?: string | undefined;
  readonly seed: number;
  readonly runs: number;
  readonly walkLimit: number;
  readonly timeoutMs: number;
}

interface ContractResult {
  readonly requests: number;
  readonly statuses: ReadonlyMap<string, ReadonlyMap<number, number>>;
  readonly walk?: { readonly pages: number; readonly plants: number; readonly stored: number };
  readonly failures: readonly Failure[];
}

export const defaults = { seed: 19, runs: 120, walkLimit: 10, timeoutMs: 10_000 } as const;

const listPlants = operationNamed('list-plants');
const createPlant = operationNamed('create-plant');
const getPlant = operationNamed('get-plant');
const deletePlant = operationNamed('delete-plant');
/** A walk that has not ended after this many pages is a violation (a link that loops). */
const maxWalkPages = 10_000;
const acceptedBody = 'a body the spec accepts';

interface RunContext {
  readonly spec: OpenApiExchanges;
  readonly options: ContractOptions;
  readonly run: (contractCase: ContractCase) => Promise<Answer | undefined>;
  readonly exchange: (request: SentRequest) => Promise<Answer | undefined>;
  readonly record: (request: SentRequest, answer: Answer, problems: readonly string[]) => void;
  readonly fail: (request: SentRequest, violations: readonly string[]) => void;
  /** For the checks' runner, which takes no answer as an error; `seen` records it by default. */
  readonly sendAs: (name: string, seen?: (request: SentRequest, answer: Answer) => void) => Send;
  readonly fixture?: CheckFixture;
}

export async function runContract(options: ContractOptions): Promise<ContractResult> {
  const spec = await loadOpenApiExchanges();
  const statuses = new Map<string, Map<number, number>>();
  const failures: Failure[] = [];
  let requests = 0;
  const created = new Map<string, boolean>();
  const record: RunContext['record'] = (request, answer, problems) => {
    const { method, path } = request;
    const operation = spec.operationOf(request);
    const row =
      operation === undefined
        ? `no route (${method} ${path})`
        : `${operation.name} (${method} ${operation.template})`;
    const seen = statuses.get(row) ?? new Map<number, number>();
    seen.set(answer.status, (seen.get(answer.status) ?? 0) + 1);
    statuses.set(row, seen);
    const violations = [...spec.checkAnswer(request, answer), ...problems];
    if (violations.length > 0) failures.push({ request, answer, violations });
  };
  const fail: RunContext['fail'] = (request, violations) => failures.push({ request, violations });
  const exchange: RunContext['exchange'] = async (request) => {
    requests += 1;
    const answer = await sendHttp(options.url, request, options.timeoutMs).catch((error) => {
      fail(request, [`no answer: ${describeError(error)}`]);
      return undefined;
    });
    const id = request.method === 'POST' && request.headers.authorization ? idOf(request) : '';
    if (id !== '' && (answer === undefined || answer.status === 200 || answer.status >= 500)) {
      created.set(id, answer?.status === 200 || created.get(id) === true);
    }
    return answer;
  };
  const run: RunContext['run'] = async (contractCase) => {
    const answer = await exchange(contractCase);
    const why = `expected ${contractCase.expect.join(' or ')} (${contractCase.why})`;
    if (answer !== undefined) {
      record(contractCase, answer, contractCase.expect.includes(answer.status) ? [] : [why]);
    }
    return answer;
  };
  const sendAs: RunContext['sendAs'] =
    (name, seen = (sent, answer) => record(sent, answer, [])) =>
    async (request) => {
      const sent = { name, ...request };
      const answer = await exchange(sent);
      if (answer === undefined) throw new Error(`no answer to ${sent.method} ${sent.path}`);
      seen(sent, answer);
      return answer;
    };
  const checkPlant = sendAs("the check plant, kept by the checks' fixture");
  const fixture = options.token === undefined ? undefined : apiFixture(checkPlant, options.token);
  const context = { spec, options, run, exchange, record, fail, sendAs, fixture };
  let walk: ContractResult['walk'];
  try {
    walk = await runSteps(context);
  } finally {
    if (fixture !== undefined) await cleanUp(created, fixture, context);
  }
  return { requests, statuses, walk, failures };
}

async function runSteps(context: RunContext): Promise<ContractResult['walk']> {
  const { spec, options, run, fixture } = context;
  const stored = new Map<string, { id: Json; name: Json; tag?: Json }>();
  let first: ContractCase | undefined;
  for (const contractCase of contractCases(spec, options)) {
    const answer = await run(contractCase);
    const authorized = contractCase.headers.authorization !== undefined;
    if (contractCase.name === acceptedBody && authorized && answer?.status === 200) {
      const { id = null } = parseExact(contractCase.body as string) as Record<string, Json>;
      // The store keeps text in NFC, which the body may not be in.
      const { name = null, tag } = (parseExact(answer.body) ?? {}) as Record<string, Json>;
      stored.set(String(id), { id, name, ...(tag === undefined ? {} : { tag }) });
      first ??= contractCase;
    }
  }
  let walk: ContractResult['walk'];
  if (first !== undefined && fixture !== undefined) {
    const plant = parseExact(first.body as string) as Record<string, Json>;
    const name = plant.name === 'Contract check' ? 'Contract check 2' : 'Contract check';
    const renamed = { ...first, body: exactJson({ ...plant, name }) };
    await run({
      ...renamed,
      name: 'the id of a stored plant, with another name',
      expect: [409],
      why: 'nothing stored is overwritten',
    });
    const { next, ...summary } = await listWalk(context, stored);
    walk = { ...summary, stored: stored.size };
    for (const cursorCase of next === undefined ? [] : cursorCases(next, options)) {
      await run(cursorCase);
    }
    const remove = {
      ...sampleHttpRequest(deletePlant, String(plant.id), options.token),
      expect: [204],
      why: 'deleting is idempotent: 204 whether or not the plant is there',
    };
    await run({ ...remove, name: 'a plant this run stored' });
    await run({ ...remove, name: 'a plant already deleted' });
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

function idOf({ body = '' }: SentRequest): string {
  const { id } = (parseExact(typeof body === 'string' ? body : Buffer.from(body).toString()) ??
    {}) as { id?: Json };
  return typeof id === 'bigint' || typeof id === 'number' ? String(id) : '';
}

/** An id whose create got no certain answer is deleted only if a check's: it may be another's. */
async function cleanUp(created: Map<string, boolean>, fixture: CheckFixture, context: RunContext) {
  const { sendAs, fail, options } = context;
  for (const [id, stored] of created) {
    const read = {
      name: 'a plant this run may have stored, read',
      ...sampleHttpRequest(getPlant, id, options.token),
    };
    try {
      if (!stored) {
        const answer = await sendAs(read.name)(read);
        const plant = answer.status === 200 ? parseExact(answer.body) : undefined;
        if ((plant as { tag?: Json } | undefined)?.tag !== checkPlantTag) continue;
      }
      await fixture.delete(id);
    } catch (error) {
      fail({ ...read, name: 'the clean-up' }, [describeError(error)]);
    }
  }
}

async function runOperationChecks(operation: DeclaredOperation, context: RunContext) {
  const { sendAs, record, fail, fixture, options } = context;
  const answered: { request: SentRequest; answer: Answer }[] = [];
  const report = await runChecks(operation, checksOf(operation), {
    send: sendAs('check', (request, answer) => answered.push({ request, answer })),
    fixture,
    id: freshPlantId(),
    token: options.token,
  });
  for (const [index, { name, problems }] of report.results.entries()) {
    const { request, answer } = answered[index] ?? {};
    if (request !== undefined && answer !== undefined) {
      record({ ...request, name: `check: ${name}` }, answer, problems);
    }
  }
  const { method, path } = operation;
  const checks = { name: `the checks of ${routeKey(operation)}`, method, path, headers: {} };
  if ('error' in report) fail(checks, [describeError(report.error)]);
}

export function sampleCases(token: string): ContractCase[] {
  return declaredOperations.map((operation) => ({
    name: `the sample of ${routeKey(operation)}, about an id no plant has`,
    ...sampleHttpRequest(operation, freshPlantId(), token),
    expect: [checksOf(operation).sample.status],
    why: `the status ${operation.name} declares for its sample`,
  }));
}

/** Plants come and go between pages; each one stored must appear exactly once. */
async function listWalk(
  { options, run, exchange, record, fail }: RunContext,
  stored: ReadonlyMap<string, { id: Json; name: Json; tag?: Json }>,
): Promise<{ next: string | undefined; pages: number; plants: number }> {
  const walkRequest = (name: string, path: string) =>
    ({ name, method: listPlants.method, path, headers: bearer(options.token) }) as const;
  const start = `${listPlants.path}?limit=${options.walkLimit}`;
  const seen = new Map<string, Json[]>();
  const targets = new Set<string>();
  let firstNext: string | undefined;
  let churn: string | undefined;
  let pages = 0;
  for (let target: string | undefined = start; target !== undefined; ) {
    const request = walkRequest(`list walk, page ${pages + 1}`, target);
    const answer = await exchange(request);
    if (answer === undefined) break;
    pages += 1;
    const problems: string[] = [];
    let next: string | undefined;
    if (answer.status !== 200) {
      problems.push('expected 200 (a next link, followed as given, lists the next page)');
    } else {
      const items = parseExact(answer.body);
      for (const item of Array.isArray(items) ? (items as Record<string, Json>[]) : []) {
        seen.set(String(item.id), [...(seen.get(String(item.id)) ?? []), item]);
      }
      next = nextLinkTarget(answer.headers.link ?? null);
      const { pathname, searchParams } = new URL(next ?? start, 'http://next.invalid/');
      if (pathname !== listPlants.path || searchParams.get('limit') !== String(options.walkLimit)) {
        problems.push(`the next link ${next} does not go on with ${start}`);
      }
      if (next !== undefined && targets.has(next)) {
        problems.push(`the next link ${next} was followed before: the walk loops`);
      }
      if (next !== undefined && pages >= maxWalkPages) {
        problems.push(`the walk has not ended after ${pages} pages`);
      }
    }
    record(request, answer, problems);
    if (problems.length > 0 || next === undefined) break;
    targets.add(next);
    firstNext ??= next;
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
  const violations = [...stored].flatMap(([id, plant]) => {
    const listed = seen.get(id) ?? [];
    if (listed.length !== 1) {
      return [`plant ${id}, stored before the walk, is listed ${listed.length} times`];
    }
    const [as] = listed.map((each) => exactJson(each));
    return as === exactJson(plant)
      ? []
      : [`plant ${id} is listed as ${as}, stored as ${exactJson(plant)}`];
  });
  for (const [id, listed] of seen) {
    if (listed.length > 1 && !stored.has(id)) {
      violations.push(`plant ${id} is listed ${listed.length} times`);
    }
  }
  if (violations.length > 0) fail(walkRequest('list walk', start), violations);
  const plants = [...seen.values()].reduce((sum, listed) => sum + listed.length, 0);
  return { next: firstNext, pages, plants };
}

function cursorCases(next: string, options: ContractOptions): ContractCase[] {
  const url = new URL(next, 'http://next.invalid/');
  const cursor = url.searchParams.get('cursor') ?? '';
  const limit = Number(url.searchParams.get('limit'));
  const headers = bearer(options.token);
  const target = (limit: number, cursor: string) =>
    `${url.pathname}?${new URLSearchParams({ limit: String(limit), cursor })}`;
  const changed = `${cursor.slice(0, -1)}${cursor.endsWith('A') ? 'B' : 'A'}`;
  const why = 'a cursor the API did not issue for this limit (x-issued-in-link)';
  const refused = (name: string, path: string) =>
    ({ name, method: listPlants.method, path, headers, expect: [400], why }) as const;
  return [
    {
      ...refused('a next link, followed again', `${url.pathname}${url.search}`),
      expect: [200],
      why: 'a cursor as the API issued it',
    },
    refused('a cursor cut short', target(limit, cursor.slice(0, -1))),
    refused('a cursor changed', target(limit, changed)),
    refused('a cursor with another limit', target(limit === 1 ? 2 : limit - 1, cursor)),
  ];
}

function contractCases(spec: OpenApiExchanges, options: ContractOptions): ContractCase[] {
  const cases: ContractCase[] = [];
  const { token } = options;
  const sampled = <T>(arbitrary: fc.Arbitrary<T>, numRuns = 100) =>
    fc.sample(arbitrary, { seed: options.seed, numRuns });
  for (const operation of spec.operations) {
    const { method } = operation;
    const schema = spec.requestBodySchema(operation);
    const parameters = requestParameters(spec, operation);
    const path = sampled(parameterTarget(operation, parameters, spec, 'valid')).find(
      (target) => spec.acceptsParameters(operation, target.path) && !target.madeUp,
    )?.path;
    if (path === undefined) throw new Error(`no parameters the spec accepts for ${operation.name}`);
    const validBody =
      schema === undefined
        ? undefined
        : sampled(describedValue(schema, spec).map(exactJson))
            .map(checkedBody)
            .find((body) => spec.acceptsBody(operation, body));
    if (schema !== undefined && validBody === undefined) {
      throw new Error(`no body the spec accepts for ${operation.name}`);
    }
    const headersOf = (withToken?: string) =>
      schema === undefined ? bearer(withToken) : jsonHeaders(withToken);
    const refusedForToken = isSecured(spec, operation) && token === undefined;
    const documented = Object.keys((operation.definition.responses ?? {}) as Schema).map(Number);
    const fromState = [404, 409].filter((status) => documented.includes(status));
    const success = documented.filter((status) => status >= 200 && status < 300);
    const statuses = [...success, ...fromState];
    const stored = `${fromState.join(' or ')} from what is stored`;

    // A body carries the checks' tag unless that changes whether the spec accepts it.
    const generated: Omit<ContractCase, 'method' | 'headers'>[] = [];
    if (schema !== undefined) {
      for (const text of sampled(bodyText(schema, spec), options.runs)) {
        const plain = withPathId(operation.template, path, text);
        const accepted = spec.acceptsBody(operation, plain);
        const marked = checkedBody(plain);
        const body =
          refusedForToken || spec.acceptsBody(operation, marked) !== accepted ? plain : marked;
        const [name, expect, why] = accepted
          ? [acceptedBody, statuses, `the spec accepts this body; ${stored}`]
          : ['a body the spec refuses', [400], 'the spec refuses this body'];
        generated.push({ name, path, body, expect, why });
      }
    } else if (parameters.length > 0) {
      const targets = sampled(parameterTarget(operation, parameters, spec, 'any'), options.runs);
      for (const { path: target, madeUp } of targets) {
        const [name, expect, why] = madeUp
          ? [
              'a value the API did not issue',
              [400],
              'only values the API issued in a next link are accepted (x-issued-in-link)',
            ]
          : spec.acceptsParameters(operation, target)
            ? ['parameters the spec accepts', statuses, 'the spec accepts these parameters']
            : ['parameters the spec refuses', [400], 'the spec refuses these parameters'];
        generated.push({ name, path: target, expect, why });
      }
    }
    const noToken = { headers: headersOf(), expect: [401], why: 'no token, whatever the request' };
    const withToken = refusedForToken ? noToken : { headers: headersOf(token) };
    cases.push(...generated.map((each) => ({ ...each, method, ...withToken })));

    const needsToken = { expect: [401], why: 'the operation needs a bearer token' };
    const asked = { method, path, ...(validBody === undefined ? {} : { body: validBody }) };
    if (isSecured(spec, operation)) {
      for (const [name, authorization] of [
        ['no token', undefined],
        ['a token that is not a JWT', 'Bearer not-a-token'],
        ['an unsigned token', `Bearer ${unsignedToken}`],
        ['another scheme', 'Basic Zm9vOmJhcg=='],
      ] as const) {
        const headers = { ...headersOf(), ...(authorization && { authorization }) };
        cases.push({ ...asked, name, headers, ...needsToken });
      }
    }
    if (validBody !== undefined && !refusedForToken) {
      const authorized = jsonHeaders(token);
      const onlyJson = { ...asked, expect: [415], why: 'the spec documents only application/json' };
      const textPlain = { 'content-type': 'text/plain', ...bearer(token) };
      cases.push(
        { ...onlyJson, name: 'text/plain', headers: textPlain },
        { ...onlyJson, name: 'no content type', headers: bearer(token) },
      );
      const { value: requestBody } = spec.resolve(operation.definition.requestBody ?? null, '');
      const maxBytes = Number((requestBody as Schema)['x-max-body-bytes']);
      if (Number.isInteger(maxBytes)) {
        cases.push({
          ...asked,
          name: `a body of ${maxBytes + 1} bytes`,
          headers: authorized,
          body: padded(validBody, maxBytes + 1),
          expect: [413],
          why: `x-max-body-bytes is ${maxBytes}`,
        });
      }
    }
  }

  const unmatched = Object.keys((spec.document['x-unmatched-route-responses'] ?? {}) as Schema);
  for (const route of unmatchedRoutes(spec)) {
    cases.push({
      name: 'a route the spec does not list',
      ...route,
      headers: jsonHeaders(token),
      expect: unmatched.map(Number),
      why: 'x-unmatched-route-responses',
    });
  }
  return cases;
}

/** A JWT with `alg: none`: well formed, signed by nobody. */
const unsignedToken = `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${Buffer.from('{"sub":"contract-check","scope":"plants/write plants/read"}').toString('base64url')}.`;

function jsonHeaders(token?: string): Record<string, string> {
  return { 'content-type': 'application/json', ...bearer(token) };
}

function padded(body: string, bytes: number): Uint8Array {
  const head = `${body.slice(0, -1)},"padding":"`;
  const padding = bytes - Buffer.byteLength(head) - 2;
  return Buffer.from(`${head}${'x'.repeat(Math.max(0, padding))}"}`);
}

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
  return security.length > 0 && security.every((each) => Object.keys(each).length > 0);
}

/** A body's id set to its path's, which the schema cannot require and the operation does. */
function withPathId(template: string, path: string, body: string): string {
  const parsed = template.endsWith('/{id}') ? parseExact(body) : undefined;
  if (typeof parsed !== 'object' || parsed === null || !('id' in parsed)) return body;
  const id = JSON.rawJSON(decodeURIComponent(path.split('/').at(-1) ?? ''));
  return exactJson({ ...parsed, id });
}

function statusTable(statuses: ContractResult['statuses']): string {
  const columns = [...new Set([...statuses.values()].flatMap((seen) => [...seen.keys()]))].sort();
  const rows = [...statuses.keys()];
  const width = Math.max('operation'.length, ...rows.map((row) => row.length));
  const line = (name: string, cells: string[]) =>
    `${name.padEnd(width)}  ${cells.map((cell) => cell.padStart(5)).join('')}`.trimEnd();
  const cells = (row: string) => columns.map((code) => String(statuses.get(row)?.get(code) ?? ''));
  const header = line('operation', columns.map(String));
  return [header, ...rows.map((row) => line(row, cells(row)))].join('\n');
}

function excerpt(body: string | Uint8Array | undefined): string {
  if (body === undefined || body.length === 0) return '(no body)';
  const text = typeof body === 'string' ? body : Buffer.from(body).toString('utf8');
  const characters = [...text];
  const shown = characters.length > 240 ? `${characters.slice(0, 240).join('')}...` : text;
  return `${JSON.stringify(shown)} (${Buffer.byteLength(text)} bytes)`;
}

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
  const seed = Number(values.seed);
  const runs = Number(values.runs);
  const walkLimit = Number(values['walk-limit']);
  const timeoutMs = Number(values.timeout);
  const counts = [seed, runs, walkLimit].every(Number.isInteger) && runs >= 0 && walkLimit >= 1;
  exitOnUsage(usage, values.help, URL.canParse(values.url ?? '') && counts && timeoutMs > 0);
  const token = values.token?.trim() || undefined;
  return { url: values.url as string, token, seed, runs, walkLimit, timeoutMs };
}

/** The command once its options are read: what it prints, and its exit code (1 on any failure). */
export async function contractCommand(
  options: ContractOptions,
  print: (text: string) => void = console.log,
): Promise<number> {
  print(
    `Contract check of ${options.url} against openapi.yaml (seed ${options.seed}, ${options.runs} generated requests per operation` +
      `${options.token ? '' : '; no --token: only requests that need none'})\n`,
  );
  const result = await runContract(options);
  print(contractReport(result));
  return result.failures.length === 0 ? 0 : 1;
}

if (import.meta.main) {
  process.exitCode = await contractCommand(parseCommandLine());
}
