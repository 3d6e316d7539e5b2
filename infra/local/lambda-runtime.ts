import { Worker } from 'node:worker_threads';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';

/** What the function is told about itself; the same values the CDK stack gives it on AWS. */
export interface FunctionSettings {
  /** `file:` URL of the module that exports `handler`. */
  readonly handlerUrl: string;
  readonly functionName: string;
  readonly region: string;
  readonly memoryMb: number;
  readonly timeoutMs: number;
}

export type ToWorker = { readonly id: number; readonly event: APIGatewayProxyEventV2 };

type FromWorker =
  | { readonly type: 'ready' }
  | { readonly type: 'init-error'; readonly message: string }
  | { readonly type: 'result'; readonly id: number; readonly result: unknown }
  | { readonly type: 'error'; readonly id: number };

export type Invocation =
  | { readonly ok: true; readonly result: unknown }
  | { readonly ok: false; readonly reason: 'error' | 'timeout' };

export class FunctionInitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FunctionInitError';
  }
}

/**
 * The function loaded once, in a worker thread with its own environment and module graph. The
 * handler configures itself from `process.env` at import, so each local API needs its own copy:
 * tests start several in one process, each with its own issuer URL and dynalite endpoint.
 */
export class LocalFunction {
  readonly #worker: Worker;
  readonly #timeoutMs: number;
  readonly #pending = new Map<number, (invocation: Invocation) => void>();
  #nextId = 0;

  private constructor(worker: Worker, timeoutMs: number) {
    this.#worker = worker;
    this.#timeoutMs = timeoutMs;
  }

  static async start(
    settings: FunctionSettings,
    env: Readonly<Record<string, string>>,
  ): Promise<LocalFunction> {
    const worker = new Worker(new URL('./lambda-worker.ts', import.meta.url), {
      workerData: settings,
      env: { ...env },
    });
    const fn = new LocalFunction(worker, settings.timeoutMs);
    // One listener for the worker's life: Node stops delivering a worker's messages promptly
    // once all its 'message' listeners have been removed, even if one is added again.
    await new Promise<void>((resolve, reject) => {
      let initialised = false;
      worker.on('message', (message: FromWorker) => {
        if (message.type === 'ready') {
          initialised = true;
          resolve();
        } else if (message.type === 'init-error') {
          reject(new FunctionInitError(`The function failed to initialise: ${message.message}`));
        } else {
          fn.#settle(
            message.id,
            message.type === 'result'
              ? { ok: true, result: message.result }
              : { ok: false, reason: 'error' },
          );
        }
      });
      // An uncaught error inside the function ends its worker, as it ends a Lambda environment.
      worker.on('error', (error) => {
        if (initialised) console.error('local function:', error);
        else reject(error);
      });
      worker.on('exit', (code) => {
        for (const id of [...fn.#pending.keys()]) fn.#settle(id, { ok: false, reason: 'error' });
        reject(new FunctionInitError(`The function's worker exited during init with code ${code}`));
      });
    });
    return fn;
  }

  #settle(id: number, invocation: Invocation): void {
    const settle = this.#pending.get(id);
    this.#pending.delete(id);
    settle?.(invocation);
  }

  /** Resolves with the handler's result, or why there is none; never rejects. */
  invoke(event: APIGatewayProxyEventV2): Promise<Invocation> {
    const id = this.#nextId++;
    return new Promise((resolve) => {
      // Lambda stops an invocation at the function timeout; here the late result is dropped.
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        resolve({ ok: false, reason: 'timeout' });
      }, this.#timeoutMs);
      this.#pending.set(id, (invocation) => {
        clearTimeout(timer);
        resolve(invocation);
      });
      this.#worker.postMessage({ id, event } satisfies ToWorker);
    });
  }

  async stop(): Promise<void> {
    await this.#worker.terminate();
  }
}
