import { createInterface } from 'node:readline';
import { setTimeout as delay } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { envNames } from '../functions/config.ts';
import { functionSettings } from '../infra/function-settings.ts';
import { localAwsCredentials } from './dynamodb.ts';

export interface LocalFunction {
  invoke(event: APIGatewayProxyEventV2): Promise<unknown>;
  stop(): Promise<void>;
}

const initError = (why: string) => new Error(`The function failed to initialise: ${why}`);

/** What a request gets that waited `warmUpMs` for its function's start. */
export const stillStarting = Symbol('still starting');

/** Started at its first invocation, as on Lambda; after a start that failed, at the next one. */
export function startedOnFirstInvoke(
  start: () => Promise<LocalFunction>,
  warmUpMs: number,
): LocalFunction {
  let starting: Promise<LocalFunction> | undefined;
  let stopped = false;
  const started = () => {
    if (starting !== undefined) return starting;
    const attempt = start();
    starting = attempt;
    attempt.catch((error: unknown) => {
      if (starting === attempt) starting = undefined;
      console.error(`local function: ${error instanceof Error ? error.message : error}`);
    });
    return attempt;
  };
  return {
    async invoke(event) {
      if (stopped) return undefined;
      const bound = new AbortController();
      const fn = await Promise.race([
        started().catch(() => undefined),
        delay(warmUpMs, stillStarting, { ref: false, signal: bound.signal }),
      ]).finally(() => bound.abort());
      return typeof fn === 'object' ? fn.invoke(event) : fn;
    },
    async stop() {
      stopped = true;
      await (await starting?.catch(() => undefined))?.stop();
    },
  };
}

export type FromWorker = { initError?: string } | { id: number; result?: unknown };

type Setting = 'handlerUrl' | 'functionName' | 'tableName' | 'issuer' | 'audience' | 'scope';
type FunctionWiring = Readonly<Record<Setting | 'dynamodbEndpoint', string>>;

export type WorkerSettings = Pick<FunctionWiring, 'handlerUrl' | 'functionName'> &
  typeof functionSettings;

const workerFile = new URL('./function-worker.ts', import.meta.url);

/** dynalite on a busy machine can take seconds; a local request waits for it rather than 503. */
const localDynamoDbAttemptTimeoutMs = 10_000;

/** The handler in a worker thread, with its own modules and `process.env`, as on Lambda. */
export async function startFunction(
  settings: FunctionWiring,
  log: (line: string) => void,
): Promise<LocalFunction> {
  const { handlerUrl, functionName } = settings;
  const { region, accessKeyId, secretAccessKey } = localAwsCredentials;
  const env = {
    [envNames.tableName]: settings.tableName,
    [envNames.issuer]: settings.issuer,
    [envNames.audiences]: settings.audience,
    [envNames.scope]: settings.scope,
    [envNames.dynamodbEndpoint]: settings.dynamodbEndpoint,
    [envNames.dynamodbAttemptTimeoutMs]: String(localDynamoDbAttemptTimeoutMs),
    AWS_REGION: region,
    AWS_ACCESS_KEY_ID: accessKeyId,
    AWS_SECRET_ACCESS_KEY: secretAccessKey,
    AWS_LAMBDA_FUNCTION_NAME: functionName,
  };
  const workerData: WorkerSettings = { handlerUrl, functionName, ...functionSettings };
  const worker = new Worker(workerFile, { workerData, env, stdout: true });
  createInterface({ input: worker.stdout }).on('line', log);
  const loaded = Promise.withResolvers<void>();
  const pending = new Map<number, (result: unknown) => void>();
  let exited = false;
  // One listener for life: Node stops delivering once all 'message' listeners were removed.
  worker.on('message', (message: FromWorker) => {
    if ('id' in message) pending.get(message.id)?.(message.result);
    else if (message.initError === undefined) loaded.resolve();
    else loaded.reject(initError(message.initError));
  });
  worker.on('error', (error) => {
    // Lambda would start a fresh environment; here requests get 500 until a restart.
    console.error('local function crashed (requests get 500 until a restart):', error);
  });
  worker.on('exit', (code) => {
    exited = true;
    loaded.reject(initError(`its worker exited with code ${code}`));
    for (const settle of pending.values()) settle(undefined);
  });
  await loaded.promise;

  const timeoutMs = functionSettings.timeoutSeconds * 1000;
  let nextId = 0;
  return {
    invoke: (event) => {
      if (exited) return Promise.resolve(undefined);
      const id = nextId++;
      return new Promise((resolve) => {
        // Lambda stops an invocation at the function timeout; here the late result is dropped.
        const timer = setTimeout(() => {
          console.error(`local function: task timed out after ${timeoutMs} ms`);
          pending.get(id)?.(undefined);
        }, timeoutMs);
        pending.set(id, (result) => {
          clearTimeout(timer);
          pending.delete(id);
          resolve(result);
        });
        worker.postMessage({ id, event });
      });
    },
    stop: () => worker.terminate().then(() => undefined),
  };
}
