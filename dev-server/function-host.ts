import { createInterface } from 'node:readline';
import { Worker } from 'node:worker_threads';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { envNames } from '../functions/config.ts';
import { functionSettings } from '../infra/function-settings.ts';
import { localAwsCredentials } from './dynamodb.ts';

export interface LocalFunction<Event = APIGatewayProxyEventV2> {
  /** The handler's result; `undefined` when it threw, timed out or crashed (API Gateway's 500). */
  invoke(event: Event): Promise<unknown>;
  /** The same, telling a failed invocation from a handler that returned `undefined`. */
  run(event: Event): Promise<Invocation>;
  stop(): Promise<void>;
}

/**
 * How one invocation ended: the handler's result, or why it has none. After a timeout or a crash
 * Lambda would not hand the environment another invocation as it is: a timed-out handler may still
 * be running in the worker, and a crashed worker answers nothing again.
 */
export type Invocation =
  | { readonly ok: true; readonly result: unknown }
  | { readonly ok: false; readonly failure: 'threw' | 'timedOut' | 'crashed' };

export class FunctionInitError extends Error {
  constructor(message: string) {
    super(`The function failed to initialise: ${message}`);
    this.name = 'FunctionInitError';
  }
}

/** `initError` once (absent when the handler loaded), then results. */
export type FromWorker = { initError?: string } | { id: number; result?: unknown };

/** What the worker needs to stand in for the function's execution environment. */
export interface WorkerSettings {
  readonly handlerUrl: string;
  /** Lambda's function name, as the context tells it. */
  readonly functionName: string;
  readonly memoryMb: number;
  readonly timeoutSeconds: number;
}

/** One function as the stack configures it, with the local stand-ins for its AWS neighbours. */
export interface FunctionSettings {
  /** The module exporting `handler`, as a URL. */
  readonly handlerUrl: string;
  readonly functionName: string;
  readonly tableName: string;
  readonly issuer: string;
  readonly audience: string;
  /** The scope its operation requires (`AUTH_SCOPE`). */
  readonly scope: string;
  readonly dynamodbEndpoint: string;
}

/**
 * The handler in a worker thread of its own, the local counterpart of a Lambda execution
 * environment: its own `process.env` and module graph, so the unmodified handler configures itself
 * at import as it does on AWS, each operation's function with its own scope, and one process can
 * run several local APIs (the tests do). What the function writes to stdout reaches `log` line by
 * line, as it reaches CloudWatch. Resolves once the handler has loaded, so a handler that cannot
 * load fails `npm start` at once.
 */
export function startFunction(
  settings: FunctionSettings,
  log: (line: string) => void,
): Promise<LocalFunction> {
  // The stack's variables and dummy credentials for dynalite; nothing of the developer's own (no
  // real AWS profile or endpoint).
  const env = {
    [envNames.tableName]: settings.tableName,
    [envNames.issuer]: settings.issuer,
    [envNames.audiences]: settings.audience,
    [envNames.scope]: settings.scope,
    [envNames.dynamodbEndpoint]: settings.dynamodbEndpoint,
    [envNames.dynamodbAttemptTimeoutMs]: String(localDynamoDbAttemptTimeoutMs),
  };
  const { handlerUrl, functionName } = settings;
  return startWorker({ handlerUrl, functionName, env, ...functionSettings }, log);
}

/**
 * dynalite on a busy laptop (or a CI machine running two suites) can take seconds where DynamoDB
 * takes milliseconds; a local request should wait for it rather than answer 503.
 */
const localDynamoDbAttemptTimeoutMs = 10_000;

/**
 * Any handler module in a worker, as `startFunction` describes, with `env` and Lambda's own
 * variables (region, dummy credentials, function name) as its whole environment.
 */
export async function startWorker<Event = APIGatewayProxyEventV2>(
  options: WorkerSettings & {
    readonly env: Readonly<Record<string, string>>;
    /** The credentials its role would give it; @default the published local ones (dynalite's) */
    readonly credentials?: { readonly accessKeyId: string; readonly secretAccessKey: string };
  },
  log: (line: string) => void,
): Promise<LocalFunction<Event>> {
  const { env: functionEnv, credentials = localAwsCredentials, ...workerData } = options;
  const { functionName, timeoutSeconds } = workerData;
  const env = {
    ...functionEnv,
    AWS_REGION: localAwsCredentials.region,
    AWS_ACCESS_KEY_ID: credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
    AWS_LAMBDA_FUNCTION_NAME: functionName,
  };
  const worker = new Worker(new URL('./function-worker.ts', import.meta.url), {
    workerData,
    env,
    stdout: true,
  });
  createInterface({ input: worker.stdout }).on('line', log);
  const loaded = Promise.withResolvers<void>();
  const pending = new Map<number, (invocation: Invocation) => void>();
  let exited = false;
  // One listener for the worker's life: Node stops delivering a worker's messages promptly once
  // all its 'message' listeners have been removed, even if one is added again later.
  worker.on('message', (message: FromWorker) => {
    if ('id' in message) {
      // The worker leaves `result` out when the handler threw.
      const invocation: Invocation =
        'result' in message
          ? { ok: true, result: message.result }
          : { ok: false, failure: 'threw' };
      pending.get(message.id)?.(invocation);
    } else if (message.initError === undefined) loaded.resolve();
    else loaded.reject(new FunctionInitError(message.initError));
  });
  worker.on('error', (error) => {
    console.error('local function crashed (requests get 500 until a restart):', error);
  });
  worker.on('exit', (code) => {
    // Lambda would start a fresh environment; here the next requests get 500 until a restart.
    exited = true;
    loaded.reject(new FunctionInitError(`its worker exited with code ${code}`));
    for (const settle of pending.values()) settle({ ok: false, failure: 'crashed' });
  });
  await loaded.promise;

  const timeoutMs = timeoutSeconds * 1000;
  let nextId = 0;
  const run = (event: Event): Promise<Invocation> => {
    if (exited) return Promise.resolve({ ok: false, failure: 'crashed' });
    const id = nextId++;
    return new Promise((resolve) => {
      // Lambda stops an invocation at the function timeout; here the late result is dropped.
      const timer = setTimeout(() => {
        console.error(`local function: task timed out after ${timeoutMs} ms`);
        pending.get(id)?.({ ok: false, failure: 'timedOut' });
      }, timeoutMs);
      pending.set(id, (invocation) => {
        clearTimeout(timer);
        pending.delete(id);
        resolve(invocation);
      });
      worker.postMessage({ id, event });
    });
  };
  return {
    run,
    invoke: (event) =>
      run(event).then((invocation) => (invocation.ok ? invocation.result : undefined)),
    stop: () => worker.terminate().then(() => undefined),
  };
}
