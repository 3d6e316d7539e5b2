import { writeFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';

/** One warm run: its events built before the clock starts, so the figures are the handler's. */
export type WarmJob = {
  readonly bundleFile: string;
  readonly requests: number;
  readonly warmup: number;
  /** POST /plants with its token; each request gets its own body. */
  readonly event: APIGatewayProxyEventV2;
  /** Ids are unique across runs, so every write is a create. */
  readonly idBase: string;
  readonly resultFile: string;
};

export type WarmResult = typeof result;

type Handler = (
  event: APIGatewayProxyEventV2,
  context: Context,
) => Promise<{ statusCode?: number; body?: string }>;

const job = JSON.parse(process.argv[2] ?? '') as WarmJob;
const { handler } = (await import(pathToFileURL(job.bundleFile).href)) as { handler: Handler };

const base = job.event;
let nextId = BigInt(job.idBase);
let invocations = 0;
const nextEvent = (): APIGatewayProxyEventV2 => {
  const body = `{"id":${nextId++},"name":"Fern","tag":"indoor"}`;
  return { ...base, headers: { ...base.headers, 'content-length': String(body.length) }, body };
};
/** A request id and the time left, which Middy reads for its early-timeout guard. */
const context = (): Context => {
  const deadline = Date.now() + 600_000;
  return {
    awsRequestId: `bench-${++invocations}`,
    getRemainingTimeInMillis: () => deadline - Date.now(),
  } as Context;
};
const invoke = async (event: APIGatewayProxyEventV2, ctx: Context) => {
  const response = await handler(event, ctx);
  if (response.statusCode !== 200) {
    throw new Error(`handler answered ${response.statusCode}: ${response.body}`);
  }
};

const firstStart = performance.now();
await invoke(nextEvent(), context());
const firstInvokeMs = performance.now() - firstStart;
for (let i = 0; i < job.warmup; i++) await invoke(nextEvent(), context());

const events = Array.from({ length: job.requests }, nextEvent);
const contexts = Array.from({ length: job.requests }, context);
const latenciesMs = new Array<number>(job.requests);
const cpuStart = process.cpuUsage();
for (let i = 0; i < job.requests; i++) {
  const started = performance.now();
  await invoke(events[i] as APIGatewayProxyEventV2, contexts[i] as Context);
  latenciesMs[i] = performance.now() - started;
}
const cpu = process.cpuUsage(cpuStart);

const result = {
  firstInvokeMs,
  latenciesMs,
  cpuMicros: cpu.user + cpu.system,
  maxRssBytes: process.resourceUsage().maxRSS * 1024,
};
await writeFile(job.resultFile, JSON.stringify(result));
// A keep-alive agent holds sockets open; the run is over, so end without waiting for them.
process.exit(0);
