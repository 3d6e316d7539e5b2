// `npm run contract -- --url <api base url> [--token <bearer token>] [--seed N] [--runs N]`: checks
// a running Plant Store API against openapi.yaml itself. Request bodies are generated from the
// spec's schemas with fast-check (a fixed seed by default, so two runs send the same requests),
// valid and invalid as the spec itself judges them, with requests without a token, with a bad
// token, with the wrong content type, too large, and to routes the spec does not list; then the
// pre-traffic hook's core cases. Every answer must be documented for its operation (status,
// headers, body) and be the status the spec gives that request. Prints the statuses seen per
// operation; exit code 1 on any violation, naming the request and the answer.
import { parseArgs } from 'node:util';
import fc from 'fast-check';
import { exactJson } from '../clients/plant-store-client.ts';
import { freshPlantId, runCoreCases } from '../functions/pre-traffic-check/core-cases.ts';
import {
  type Answer,
  loadOpenApiExchanges,
  type OpenApiExchanges,
  type Operation,
  type Route,
} from './openapi-exchange.ts';

/** One request of a run. */
export interface SentRequest {
  /** What the request is, for the report: `a body the spec accepts`, `no token`, ... */
  readonly name: string;
  readonly method: string;
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
  /** A bearer token with the operations' scopes; without one, only what needs no token is sent. */
  readonly token?: string | undefined;
  readonly seed: number;
  /** How many request bodies are generated. */
  readonly runs: number;
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
  readonly failures: readonly ContractFailure[];
}

export const defaults = { seed: 19, runs: 120, timeoutMs: 10_000 } as const;

type Json = null | boolean | number | string | bigint | Json[] | { [key: string]: Json };
type Schema = { [keyword: string]: unknown };

/**
 * Sends the generated cases, a conflict on a plant they stored, then the pre-traffic hook's core
 * cases (functions/pre-traffic-check/core-cases.ts, judged by their own rules as well), and checks
 * every answer against the spec.
 */
export async function runContract(options: ContractOptions): Promise<ContractResult> {
  const spec = await loadOpenApiExchanges();
  const baseUrl = options.url.replace(/\/+$/, '');
  const statuses = new Map<string, Map<number, number>>();
  const failures: ContractFailure[] = [];
  let requests = 0;

  /** Counts the answer's status for its operation; a failure if the spec or `problems` object. */
  const record = (request: SentRequest, answer: Answer, problems: readonly string[]) => {
    const route: Route = { method: request.method, path: request.path };
    const operation = spec.operationOf(route);
    const row = `${operation?.name ?? 'no route'} (${route.method} ${route.path})`;
    const seen = statuses.get(row) ?? new Map<number, number>();
    seen.set(answer.status, (seen.get(answer.status) ?? 0) + 1);
    statuses.set(row, seen);
    const violations = [...spec.checkAnswer(route, answer), ...problems];
    if (violations.length > 0) failures.push({ request, answer, violations });
  };
  const exchange = async (request: SentRequest): Promise<Answer | undefined> => {
    requests += 1;
    try {
      return await send(baseUrl, request, options.timeoutMs);
    } catch (error) {
      failures.push({ request, violations: [`no answer: ${describeError(error)}`] });
      return undefined;
    }
  };

  let stored: ContractCase | undefined;
  for (const contractCase of contractCases(spec, options)) {
    const answer = await exchange(contractCase);
    if (answer === undefined) continue;
    const expected = contractCase.expect.includes(answer.status);
    record(
      contractCase,
      answer,
      expected ? [] : [`expected ${contractCase.expect.join(' or ')} (${contractCase.why})`],
    );
    const authorized = contractCase.headers.authorization !== undefined;
    if (contractCase.name === acceptedBody && authorized && [200, 409].includes(answer.status)) {
      stored ??= contractCase;
    }
  }

  // A plant stored under an id, sent again with another name, is the conflict the spec documents.
  if (stored !== undefined) {
    const plant = parseExact(stored.body as string) as Record<string, Json>;
    const other = plant.name === 'Contract check' ? 'Contract check 2' : 'Contract check';
    const conflict = {
      ...stored,
      name: 'the id of a stored plant, with another name',
      body: exactJson({ ...plant, name: other }),
    };
    const answer = await exchange(conflict);
    if (answer !== undefined) {
      record(
        conflict,
        answer,
        answer.status === 409 ? [] : ['expected 409 (nothing stored is overwritten)'],
      );
    }
  }

  // The core cases judge each answer themselves, after it is sent; they are recorded once run.
  const core: { request: SentRequest; answer: Answer }[] = [];
  const report = await runCoreCases(
    async (request) => {
      const sent = { name: 'core case', ...request };
      const answer = await exchange(sent);
      if (answer === undefined) throw new Error('no answer');
      core.push({ request: sent, answer });
      return answer;
    },
    { id: freshPlantId(), ...(options.token === undefined ? {} : { token: options.token }) },
  ).catch(() => undefined);
  for (const [index, result] of (report?.results ?? []).entries()) {
    const sent = core[index];
    if (sent !== undefined) {
      record({ ...sent.request, name: `core case: ${result.name}` }, sent.answer, result.problems);
    }
  }
  return { requests, statuses, failures };
}

const acceptedBody = 'a body the spec accepts';

/** The cases of one run: for each operation with a JSON body, generated bodies, then edge requests. */
export function contractCases(spec: OpenApiExchanges, options: ContractOptions): ContractCase[] {
  const cases: ContractCase[] = [];
  const { token } = options;
  for (const operation of operations(spec)) {
    const { method, path } = operation.route;
    const schema = spec.requestBodySchema(operation);
    if (schema === undefined) continue;
    const secured = isSecured(spec, operation);
    const success = documentedSuccess(operation);
    const validBody = fc
      .sample(describedValue(schema, spec).map(exactJson), { seed: options.seed, numRuns: 100 })
      .find((body) => spec.acceptsBody(operation, body));
    if (validBody === undefined) throw new Error(`no body the spec accepts for ${operation.name}`);

    const bodies = fc.sample(bodyText(schema, spec), { seed: options.seed, numRuns: options.runs });
    for (const body of bodies) {
      const accepted = spec.acceptsBody(operation, body);
      const sent = {
        name: accepted ? acceptedBody : 'a body the spec refuses',
        method,
        path,
        body,
      };
      if (secured && token === undefined) {
        cases.push({
          ...sent,
          headers: jsonHeaders(),
          expect: [401],
          why: 'no token, whatever the body',
        });
      } else if (accepted) {
        const why = 'the spec accepts this body; 409 if its id is taken';
        cases.push({ ...sent, headers: jsonHeaders(token), expect: [...success, 409], why });
      } else {
        const why = 'the spec refuses this body';
        cases.push({ ...sent, headers: jsonHeaders(token), expect: [400], why });
      }
    }

    if (secured) {
      const unauthenticated = {
        method,
        path,
        body: validBody,
        expect: [401],
        why: 'the operation needs a bearer token',
      } as const;
      cases.push(
        { ...unauthenticated, name: 'no token', headers: jsonHeaders() },
        {
          ...unauthenticated,
          name: 'a token that is not a JWT',
          headers: { ...jsonHeaders(), authorization: 'Bearer not-a-token' },
        },
        {
          ...unauthenticated,
          name: 'an unsigned token',
          headers: { ...jsonHeaders(), authorization: `Bearer ${unsignedToken}` },
        },
        {
          ...unauthenticated,
          name: 'another scheme',
          headers: { ...jsonHeaders(), authorization: 'Basic Zm9vOmJhcg==' },
        },
      );
    }
    if (!secured || token !== undefined) {
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

/** JSON.parse, except that an integer a double cannot hold exactly stays exact, as a bigint. */
function parseExact(text: string): Json {
  const parse = JSON.parse as (
    text: string,
    reviver: (key: string, value: unknown, context?: { source?: string }) => unknown,
  ) => Json;
  return parse(text, (_key, value, context) => {
    const source = context?.source ?? '';
    return typeof value === 'number' && !Number.isSafeInteger(value) && /^-?\d+$/.test(source)
      ? BigInt(source)
      : value;
  });
}

function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? ` (${error.cause.message})` : '';
  return `${error.name}: ${error.message}${cause}`;
}

/** A JWT with `alg: none`: well formed, signed by nobody. */
const unsignedToken = `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${Buffer.from('{"sub":"contract-check","scope":"plants/write plants/read"}').toString('base64url')}.`;

function jsonHeaders(token?: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
  };
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

/** A method each listed path does not have, and a path the spec does not list. */
function unmatchedRoutes(spec: OpenApiExchanges): Route[] {
  const routes: Route[] = [];
  for (const [path, item] of Object.entries((spec.document.paths ?? {}) as Schema)) {
    const method = ['put', 'patch', 'delete', 'get', 'post'].find(
      (name) => !Object.hasOwn(item as Schema, name),
    );
    // A template's parameters stand for any value: `1` is one.
    const concrete = path.replaceAll(/\{[^}/]+\}/g, '1');
    if (method !== undefined) routes.push({ method: method.toUpperCase(), path: concrete });
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
  const int64 = [-(2n ** 63n), 2n ** 63n - 1n] as const;
  const [lowest, highest] =
    schema.format === 'int64'
      ? int64
      : [BigInt(Number.MIN_SAFE_INTEGER), BigInt(Number.MAX_SAFE_INTEGER)];
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

// --- HTTP and the report -------------------------------------------------------------------------

async function send(
  baseUrl: string,
  contractCase: SentRequest,
  timeoutMs: number,
): Promise<Answer> {
  const response = await fetch(`${baseUrl}${contractCase.path}`, {
    method: contractCase.method,
    headers: contractCase.headers,
    ...(contractCase.body === undefined ? {} : { body: contractCase.body }),
    redirect: 'manual',
    signal: AbortSignal.timeout(timeoutMs),
  });
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  return { status: response.status, headers, body: await response.text() };
}

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

function report(result: ContractResult): string {
  const lines = [statusTable(result.statuses), ''];
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
  'Usage: npm run contract -- --url <api base url> [--token <bearer token>] [--seed N] [--runs N]\n' +
  '  e.g. npm run contract -- --url http://127.0.0.1:3000 --token "$(npm run -s token)"';

function parseCommandLine(): ContractOptions {
  const { values } = parseArgs({
    options: {
      url: { type: 'string' },
      token: { type: 'string' },
      seed: { type: 'string', default: String(defaults.seed) },
      runs: { type: 'string', default: String(defaults.runs) },
      timeout: { type: 'string', default: String(defaults.timeoutMs) },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(usage);
    process.exit(0);
  }
  const [seed, runs, timeoutMs] = [
    Number(values.seed),
    Number(values.runs),
    Number(values.timeout),
  ];
  if (
    !values.url ||
    !URL.canParse(values.url) ||
    !Number.isInteger(seed) ||
    !Number.isInteger(runs) ||
    runs < 0 ||
    !(timeoutMs > 0)
  ) {
    console.error(usage);
    process.exit(2);
  }
  return { url: values.url, token: values.token?.trim() || undefined, seed, runs, timeoutMs };
}

if (import.meta.main) {
  const options = parseCommandLine();
  console.log(
    `Contract check of ${options.url} against openapi.yaml (seed ${options.seed}, ${options.runs} generated bodies` +
      `${options.token ? '' : '; no --token: only requests that need none'})\n`,
  );
  const result = await runContract(options);
  console.log(report(result));
  process.exitCode = result.failures.length === 0 ? 0 : 1;
}
