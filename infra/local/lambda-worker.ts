// Runs inside a worker thread: the local counterpart of one Lambda execution environment.
// The worker was given the function's environment, so the handler module configures itself from
// `process.env` at import exactly as it does on AWS; this file only relays events and results.
import { randomUUID } from 'node:crypto';
import { parentPort, workerData } from 'node:worker_threads';
import type { Context } from 'aws-lambda';
import type { FunctionSettings, ToWorker } from './lambda-runtime.ts';

if (parentPort === null) throw new Error('lambda-worker.ts runs only as a worker thread');
const port = parentPort;
const settings = workerData as FunctionSettings;

type Handler = (event: unknown, context: Context) => Promise<unknown>;

if (settings.relayStdout) {
  // Lambda's runtime collects what the function writes; here it travels on the same port as the
  // results, so a request's log line reaches the server before the request's result does.
  process.stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    port.postMessage({ type: 'stdout', text });
    const callback = rest.find((arg) => typeof arg === 'function') as (() => void) | undefined;
    if (callback) queueMicrotask(callback);
    return true;
  }) as typeof process.stdout.write;
}

let handler: Handler;
try {
  const module = (await import(settings.handlerUrl)) as { handler?: unknown };
  if (typeof module.handler !== 'function') {
    throw new TypeError(`${settings.handlerUrl} does not export a function named handler`);
  }
  handler = module.handler as Handler;
  port.postMessage({ type: 'ready' });
} catch (error) {
  port.postMessage({ type: 'init-error', message: describe(error) });
  process.exit(1);
}

port.on('message', (message: ToWorker) => {
  const context = lambdaContext(settings);
  handler(message.event, context).then(
    (result) => port.postMessage({ type: 'result', id: message.id, result }),
    (error: unknown) => {
      // The runtime logs an unhandled error the way Lambda does; the gateway turns it into a 500.
      console.error(
        JSON.stringify({ level: 'ERROR', requestId: context.awsRequestId, error: describe(error) }),
      );
      port.postMessage({ type: 'error', id: message.id });
    },
  );
});

function lambdaContext(fn: FunctionSettings): Context {
  const deadline = Date.now() + fn.timeoutMs;
  const unsupported = () => {
    throw new Error('Callback-style completion is not supported by the nodejs24.x runtime');
  };
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: fn.functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${fn.region}:000000000000:function:${fn.functionName}`,
    memoryLimitInMB: String(fn.memoryMb),
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${fn.functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: unsupported,
    fail: unsupported,
    succeed: unsupported,
  };
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
