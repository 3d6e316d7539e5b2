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
  /** Send what the function writes to stdout to `onStdout` instead of this process's stdout. */
  readonly relayStdout?: boolean;
}

export type ToWorker = { readonly id: number; readonly event: APIGatewayProxyEventV2 };

type FromWorker =
  | { readonly type: 'ready' }
  | { readonly type: 'stdout'; readonly text: string }
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
 * The function in a worker thread with its own environment and module graph: the local
 * counterpart of a Lambda execution environment. The handler configures itself from `process.env`
 * at import, so each local API needs its own copy (tests start several in one process, each with
 * its own issuer URL and dynalite endpoint). A worker that dies is replaced on the next request,
 * with a fresh cold start, as Lambda replaces a crashed environment.
 */
export class LocalFunction {
  readonly #settings: FunctionSettings;
  readonly #env: Readonly<Record<string, string>>;
  readonly #pending = new Map<number, (invocation: Invocation) => void>();
  readonly #onStdout: (text: string) => void;
  #worker: Promise<Worker> | undefined;
  #nextId = 0;
  #stopped = false;

  private constructor(
    settings: FunctionSettings,
    env: Readonly<Record<string, string>>,
    onStdout: (text: string) => void,
  ) {
    this.#settings = settings;
    this.#env = env;
    this.#onStdout = onStdout;
  }

  /** Loads the handler once up front, so a handler that cannot load fails `npm start` at once. */
  static async start(
    settings: FunctionSettings,
    env: Readonly<Record<string, string>>,
    onStdout: (text: string) => void = (text) => process.stdout.write(text),
  ): Promise<LocalFunction> {
    const fn = new LocalFunction(settings, env, onStdout);
    await fn.#ensureWorker();
    return fn;
  }

  /** Resolves with the handler's result, or why there is none; never rejects. */
  async invoke(event: APIGatewayProxyEventV2): Promise<Invocation> {
    let worker: Worker;
    try {
      worker = await this.#ensureWorker();
    } catch (error) {
      console.error('local function:', error instanceof Error ? error.message : error);
      return { ok: false, reason: 'error' };
    }
    const id = this.#nextId++;
    return new Promise((resolve) => {
      // Lambda stops an invocation at the function timeout; here the late result is dropped.
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        console.error(`local function: task timed out after ${this.#settings.timeoutMs} ms`);
        resolve({ ok: false, reason: 'timeout' });
      }, this.#settings.timeoutMs);
      this.#pending.set(id, (invocation) => {
        clearTimeout(timer);
        resolve(invocation);
      });
      worker.postMessage({ id, event } satisfies ToWorker);
    });
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    const worker = await this.#worker?.catch(() => undefined);
    await worker?.terminate();
  }

  #ensureWorker(): Promise<Worker> {
    if (this.#stopped) return Promise.reject(new Error('The local function is stopped'));
    this.#worker ??= this.#spawn();
    return this.#worker;
  }

  #spawn(): Promise<Worker> {
    const worker = new Worker(new URL('./lambda-worker.ts', import.meta.url), {
      workerData: this.#settings,
      env: { ...this.#env },
    });
    return new Promise<Worker>((resolve, reject) => {
      let initialised = false;
      // One listener for the worker's life: Node stops delivering a worker's messages promptly
      // once all its 'message' listeners have been removed, even if one is added again later.
      worker.on('message', (message: FromWorker) => {
        if (message.type === 'stdout') {
          this.#onStdout(message.text);
        } else if (message.type === 'ready') {
          initialised = true;
          resolve(worker);
        } else if (message.type === 'init-error') {
          reject(new FunctionInitError(`The function failed to initialise: ${message.message}`));
        } else {
          this.#settle(
            message.id,
            message.type === 'result'
              ? { ok: true, result: message.result }
              : { ok: false, reason: 'error' },
          );
        }
      });
      worker.on('error', (error) => {
        if (initialised) console.error('local function crashed:', error);
        else reject(error);
      });
      worker.on('exit', (code) => {
        this.#worker = undefined;
        for (const id of [...this.#pending.keys()])
          this.#settle(id, { ok: false, reason: 'error' });
        if (!initialised) {
          reject(
            new FunctionInitError(`The function's worker exited during init with code ${code}`),
          );
        }
      });
    });
  }

  #settle(id: number, invocation: Invocation): void {
    const settle = this.#pending.get(id);
    this.#pending.delete(id);
    settle?.(invocation);
  }
}
