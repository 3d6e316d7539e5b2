// `npm run smoke -- --url <api base url> --token <bearer token>`: checks a deployed or local Plant
// Store API end to end with one fresh plant, through the typed client (clients/), as an API consumer
// would: create, replay, conflict, list, delete, create again, delete. Then every operation of
// functions/operations.ts is sent its declared sample, about an id no plant has, without a token
// (a 401) and with one (the status it declares). The token needs both scopes, as `npm run -s token`
// and the stack's machine client give. One PASS/FAIL line per step; exit code 1 on any failure.
// Every plant the run may have stored is deleted at the end, whatever failed before, and each
// carries the checks' reserved tag, which the webhook never delivers (docs/decisions/0146-*).
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import {
  type ApiError,
  createPlantStoreClient,
  exactJson,
  listPlantPages,
  type NewPlant,
  type Plant,
  type PlantListItem,
  type PlantStoreClient,
} from '../clients/plant-store-client.ts';
import { type Operation, operations, routeKey } from '../functions/operations.ts';
import { checkPlantTag } from '../infra/webhook-settings.ts';
import { sampleHttpRequest } from './sample-request.ts';

const usage =
  'Usage: npm run smoke -- --url <api base url> --token <bearer token> [--timeout <ms>]\n' +
  '  e.g. npm run smoke -- --url http://127.0.0.1:3000 --token "$(npm run -s token)"';

interface Answer {
  readonly status: number;
  /** The body as JSON text, for the PASS/FAIL line. */
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
const baseUrl = url.href.replace(/\/+$/, '');
const api = createPlantStoreClient({ baseUrl, token });

// A random positive int64: most such ids are above 2^53, where a JavaScript number would round
// them, so it is a bigint, which the client writes into the JSON digit for digit.
const freshId = () => randomBytes(8).readBigUInt64BE() >> 1n;
const id = freshId();
/** An id of its own for each operation's sample, so that no sample finds what another stored. */
const sampleIds = new Map<string, bigint>(
  operations.map((operation) => [operation.name, freshId()]),
);
const plant: Plant = { name: 'Smoke test fern', tag: checkPlantTag };
const newPlant: NewPlant = { id, ...plant };
const conflicting: NewPlant = { id, name: 'Smoke test rose', tag: checkPlantTag };

async function post(client: PlantStoreClient, body: NewPlant): Promise<Answer> {
  const { data, error, response } = await client.POST('/plants', {
    body,
    signal: AbortSignal.timeout(timeoutMs),
  });
  const json: unknown = data ?? error;
  return { status: response.status, text: JSON.stringify(json) ?? '', json };
}

async function remove(client: PlantStoreClient, plantId = id): Promise<Answer> {
  const { error, response } = await client.DELETE('/plants/{id}', {
    params: { path: { id: plantId } },
    signal: AbortSignal.timeout(timeoutMs),
  });
  return { status: response.status, text: JSON.stringify(error) ?? '', json: error };
}

/** The operation's sample about its own id, sent over HTTP as its declaration builds it. */
async function sendSample(operation: Operation, withToken?: string): Promise<Answer> {
  const { path, ...request } = sampleHttpRequest(
    operation,
    String(sampleIds.get(operation.name)),
    withToken,
  );
  const response = await fetch(`${baseUrl}${path}`, {
    ...request,
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    // An answer that is not JSON is shown as it came.
  }
  return { status: response.status, text, json };
}

/** The plant's items in a walk of every page, following Link, until a page holds it. */
async function findListed(): Promise<{ items: PlantListItem[]; pages: number }> {
  const items: PlantListItem[] = [];
  let pages = 0;
  for await (const page of listPlantPages(api, {
    limit: 100,
    signal: AbortSignal.timeout(timeoutMs * 10),
  })) {
    pages += 1;
    items.push(...page.filter((item) => String(item.id) === String(id)));
    if (items.length > 0) break;
  }
  return { items, pages };
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

function expectNoContent(answer: Answer): string {
  expectStatus(answer, 204);
  return '204';
}

function expectError(answer: Answer, status: number): string {
  expectStatus(answer, status);
  const error = answer.json as Partial<ApiError> | undefined;
  if (error?.error !== status || typeof error.message !== 'string') {
    throw new StepFailed(
      `expected {"error":${status},"message":...}, got ${answer.text.slice(0, 300)}`,
    );
  }
  return `${status} ${answer.text}`;
}

const steps: readonly Step[] = [
  { name: `create plant ${id}`, run: async () => expectPlant(await post(api, newPlant)) },
  {
    name: 'replay the same create (idempotent)',
    run: async () => expectPlant(await post(api, newPlant)),
  },
  {
    name: 'same id, another name is a conflict',
    run: async () => expectError(await post(api, conflicting), 409),
  },
  {
    name: 'the stored plant is unchanged',
    run: async () => expectPlant(await post(api, newPlant)),
  },
  {
    name: 'the list holds the plant with its exact id',
    run: async () => {
      const { items, pages } = await findListed();
      const expected = { id, ...plant };
      if (
        items.length !== 1 ||
        String(items[0]?.id) !== String(id) ||
        items[0]?.name !== plant.name
      ) {
        throw new StepFailed(`expected ${exactJson(expected)} once, got ${exactJson(items)}`);
      }
      return `200 ${exactJson(items[0])} (page ${pages})`;
    },
  },
  {
    name: 'delete the plant',
    run: async () => expectNoContent(await remove(api)),
  },
  {
    name: 'delete it again (idempotent)',
    run: async () => expectNoContent(await remove(api)),
  },
  {
    name: 'the deleted id takes another name',
    run: async () => {
      const answer = await post(api, conflicting);
      expectStatus(answer, 200);
      return `200 ${answer.text}`;
    },
  },
  {
    name: 'delete it (clean up)',
    run: async () => expectNoContent(await remove(api)),
  },
  ...operations.flatMap((operation): Step[] => [
    {
      name: `${routeKey(operation)} without a token is refused`,
      run: async () => expectError(await sendSample(operation), 401),
    },
    {
      name: `${routeKey(operation)}'s sample, about an id no plant has`,
      run: async () => {
        const answer = await sendSample(operation, token);
        expectStatus(answer, operation.sample.status);
        return `${answer.status} ${answer.text}`.trimEnd();
      },
    },
  ]),
  {
    name: 'delete every id this run used (clean up)',
    run: deleteEveryId,
  },
];

/**
 * Deletes the plant's id and every sample's, each once whatever became of the others: the last
 * step, so that a plant a failed step left behind is deleted too.
 */
async function deleteEveryId(): Promise<string> {
  const ids = [id, ...sampleIds.values()];
  const failed: string[] = [];
  for (const each of ids) {
    try {
      expectNoContent(await remove(api, each));
    } catch (error) {
      failed.push(`${each}: ${error instanceof StepFailed ? error.message : describe(error)}`);
    }
  }
  if (failed.length > 0) throw new StepFailed(`not deleted: ${failed.join('; ')}`);
  return `204 x ${ids.length}`;
}

console.log(`Smoke test of ${baseUrl}: ${operations.map(routeKey).join(', ')}`);
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
