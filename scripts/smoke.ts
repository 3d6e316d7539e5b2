// `npm run smoke -- --url <api base url> --token <bearer token>`: checks a deployed or local Plant
// Store API end to end with one fresh plant. One PASS/FAIL line per step; exit code 1 on any failure.
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';

const usage =
  'Usage: npm run smoke -- --url <api base url> --token <bearer token> [--timeout <ms>]\n' +
  '  e.g. npm run smoke -- --url http://127.0.0.1:3000 --token "$(npm run -s token)"';

interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  readonly json: unknown;
}

interface Step {
  readonly name: string;
  readonly run: () => Promise<string>;
}

class StepFailed extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StepFailed';
  }
}

function parseCommandLine(): { url: URL; token: string; timeoutMs: number } {
  const { values } = parseArgs({
    options: {
      url: { type: 'string' },
      token: { type: 'string' },
      timeout: { type: 'string', default: '10000' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(usage);
    process.exit(0);
  }
  const timeoutMs = Number(values.timeout);
  if (!values.url || !URL.canParse(values.url) || !values.token || !(timeoutMs > 0)) {
    console.error(usage);
    process.exit(2);
  }
  return { url: new URL(values.url), token: values.token.trim(), timeoutMs };
}

const { url, token, timeoutMs } = parseCommandLine();
const plantsUrl = new URL(`${url.pathname.replace(/\/+$/, '')}/plants`, url);

// A random positive int64, kept as decimal text: most such ids are above 2^53, where a JavaScript
// number would round them, so the JSON is built as text to send exactly these digits.
const id = (randomBytes(8).readBigUInt64BE() >> 1n).toString();
const plant = { name: 'Smoke test fern', tag: 'smoke' };
const body = `{"id":${id},"name":${JSON.stringify(plant.name)},"tag":${JSON.stringify(plant.tag)}}`;
const conflicting = `{"id":${id},"name":"Smoke test rose","tag":"smoke"}`;

async function post(payload: string, authorization?: string): Promise<Answer> {
  const response = await fetch(plantsUrl, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(authorization === undefined ? {} : { authorization }),
    },
    body: payload,
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

function expectStatus(answer: Answer, status: number): void {
  if (answer.status !== status) {
    throw new StepFailed(`expected ${status}, got ${answer.status} ${answer.text.slice(0, 300)}`);
  }
}

function expectPlant(answer: Answer): string {
  expectStatus(answer, 200);
  if (JSON.stringify(answer.json) !== JSON.stringify(plant)) {
    throw new StepFailed(`expected ${JSON.stringify(plant)}, got ${answer.text.slice(0, 300)}`);
  }
  return `200 ${answer.text}`;
}

function expectError(answer: Answer, status: number): string {
  expectStatus(answer, status);
  const error = answer.json as { error?: unknown; message?: unknown } | undefined;
  if (error?.error !== status || typeof error.message !== 'string') {
    throw new StepFailed(
      `expected {"error":${status},"message":...}, got ${answer.text.slice(0, 300)}`,
    );
  }
  return `${status} ${answer.text}`;
}

const bearer = `Bearer ${token}`;
const steps: readonly Step[] = [
  { name: `create plant ${id}`, run: async () => expectPlant(await post(body, bearer)) },
  {
    name: 'replay the same create (idempotent)',
    run: async () => expectPlant(await post(body, bearer)),
  },
  {
    name: 'same id, another name is a conflict',
    run: async () => expectError(await post(conflicting, bearer), 409),
  },
  {
    name: 'the stored plant is unchanged',
    run: async () => expectPlant(await post(body, bearer)),
  },
  {
    name: 'no token is rejected',
    run: async () => {
      const answer = await post(body);
      expectStatus(answer, 401);
      return `401 ${answer.text}`;
    },
  },
];

console.log(`Smoke test of ${plantsUrl.href}`);
let failures = 0;
for (const step of steps) {
  try {
    console.log(`PASS ${step.name}: ${await step.run()}`);
  } catch (error) {
    failures += 1;
    const reason = error instanceof StepFailed ? error.message : describe(error);
    console.log(`FAIL ${step.name}: ${reason}`);
  }
}
console.log(failures === 0 ? 'PASS all steps' : `FAIL ${failures} of ${steps.length} steps`);
process.exitCode = failures === 0 ? 0 : 1;

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? ` (${error.cause.message})` : '';
  return `${error.name}: ${error.message}${cause}`;
}
