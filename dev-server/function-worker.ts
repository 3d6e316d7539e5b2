// Inside the function's worker thread (function-host.ts): relays events and results.
import { randomUUID } from 'node:crypto';
import { parentPort, workerData } from 'node:worker_threads';
import type { Context } from 'aws-lambda';
import type { FromWorker, WorkerSettings } from './function-host.ts';

const port = parentPort as NonNullable<typeof parentPort>;
const settings = workerData as WorkerSettings;
const post = (message: FromWorker) => port.postMessage(message);
const errorText = (error: unknown) =>
  error instanceof Error ? `${error.name}: ${error.message}` : String(error);

type Handler = (event: unknown, context: Context) => Promise<unknown>;
let handler: Handler;
try {
  const module = (await import(settings.handlerUrl)) as { handler?: unknown };
  if (typeof module.handler !== 'function') {
    throw new TypeError(`${settings.handlerUrl} does not export a function named handler`);
  }
  handler = module.handler as Handler;
} catch (error) {
  post({ initError: errorText(error) });
  process.exit(1);
}
post({});

port.on('message', ({ id, event }: { id: number; event: unknown }) => {
  const context = lambdaContext();
  handler(event, context).then(
    (result) => post({ id, result }),
    (error: unknown) => {
      // As Lambda's runtime logs an unhandled error; no result is the gateway's 500.
      const line = { level: 'ERROR', requestId: context.awsRequestId, error: errorText(error) };
      console.error(JSON.stringify(line));
      post({ id });
    },
  );
});

function lambdaContext(): Context {
  const { functionName, memoryMb, timeoutSeconds } = settings;
  const deadline = Date.now() + timeoutSeconds * 1000;
  const noCallbacks = () => {
    throw new Error('Callback-style completion is not supported by the nodejs24.x runtime');
  };
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${process.env.AWS_REGION}:000000000000:function:${functionName}`,
    memoryLimitInMB: String(memoryMb),
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: noCallbacks,
    fail: noCallbacks,
    succeed: noCallbacks,
  };
}
