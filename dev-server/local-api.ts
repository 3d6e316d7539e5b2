import { join } from 'node:path';
import { type OperationName, operations } from '../functions/operations.ts';
import { defaults, isLoopback, type LocalConfig, refuseWeakSecret } from './config.ts';
import { lockDataDir } from './data-dir.ts';
import { DevIssuer } from './dev-issuer.ts';
import { startDynamoDb } from './dynamodb.ts';
import { FailureBackoff } from './failure-backoff.ts';
import { type LocalFunction, startedOnFirstInvoke, startFunction } from './function-host.ts';
import { loadOrCreateSigningKey, recordIssuer } from './issuer-files.ts';
import { routes } from './routes.ts';
import { type RequestHandler, startServer } from './server.ts';
import {
  type LocalWebhook,
  type LocalWebhookOptions,
  startLocalWebhook,
} from './webhook/local-webhook.ts';
import { loadOrCreateWebhookSecret } from './webhook/webhook-secret.ts';

const localTableName = 'plants';

/** What keeps one local server small and responsive under many clients; tests lower them. */
export const defaultLimits = {
  /** Bodies held in memory at once of requests the issuer vouches for; past it, 429. */
  bodyBytesInFlight: 32 * 1024 * 1024,
  /** The same for all other requests together: room for one body of the gateway's 10 MB. */
  unvouchedBodyBytesInFlight: 16 * 1024 * 1024,
  /** Failed client authentications at the token endpoint, per client address (FailureBackoff). */
  tokenFailures: { burst: 10, forgivenPerSecond: 1, maxAddresses: 10_000 },
  /** Time to receive a whole request, headers and body; past it Node answers 408 and closes. */
  requestTimeoutMs: 30_000,
  /** How long a request is held while its function starts: Lambda's init limit. */
  warmUpMs: 10_000,
  /** Connections open at once; past it a new one is closed as it arrives (decision 0121). */
  maxConnections: 1_000,
};

export interface LocalApiOptions extends Pick<LocalConfig, 'host' | 'port'> {
  readonly dataDir?: string;
  readonly client?: LocalConfig['client'];
  readonly log?: (line: string) => void;
  /** Test-only: a module (URL) in place of an operation's functions/<name>/handler.ts. */
  readonly handlers?: { readonly [name in OperationName]?: string };
  readonly limits?: Partial<typeof defaultLimits>;
  /** Delivers each new plant's event to `url`; without a `secret`, one is generated and kept. */
  readonly webhook?: Omit<LocalWebhookOptions, 'secret'> & { readonly secret?: string };
}

export type LocalApi = Awaited<ReturnType<typeof startLocalApi>>;

export async function startLocalApi(options: LocalApiOptions) {
  const { host, port, dataDir, log = console.log } = options;
  const client = options.client ?? { id: defaults.clientId, secret: defaults.clientSecret };
  const loopbackOnly = await isLoopback(host);
  refuseWeakSecret(host, loopbackOnly, client.secret);
  const limits = { ...defaultLimits, ...options.limits };
  // Undone in reverse: the server drains, the functions stop, the store flushes, the lock goes.
  const stops: (() => Promise<void>)[] = [];
  const stopAll = async () => {
    for (const stop of stops.splice(0).reverse()) await stop();
  };
  const handler = Promise.withResolvers<RequestHandler | undefined>();

  try {
    if (dataDir !== undefined) stops.push((await lockDataDir(dataDir)).release);
    const key = await loadOrCreateSigningKey(dataDir);
    const storeDir = dataDir && join(dataDir, 'dynamodb');
    const dynamodb = await startDynamoDb({ dir: storeDir, tableName: localTableName });
    stops.push(() => dynamodb.close());
    // Before any function can write, so that the stream records every new item.
    let webhook: LocalWebhook | undefined;
    if (options.webhook !== undefined) {
      const secret = options.webhook.secret ?? (await loadOrCreateWebhookSecret(dataDir));
      webhook = await startLocalWebhook({
        level: dynamodb.level,
        tableName: localTableName,
        dataDir,
        webhook: { ...options.webhook, secret },
        log,
      });
      stops.push(webhook.close);
    }

    // One worker per operation, as on AWS, each started by its first request
    // (docs/decisions/0096-one-worker-per-operation.md). Stopped after the server has drained.
    const functions = new Map<OperationName, LocalFunction>();
    stops.push(() => Promise.all([...functions.values()].map((fn) => fn.stop())).then(() => {}));
    const server = await startServer({ host, port, log, ...limits }, handler.promise);
    stops.push(() => server.close());
    const issuer = new DevIssuer({ issuer: server.url, key, client });
    if (dataDir !== undefined) await recordIssuer(dataDir, server.url);
    const wiring = {
      tableName: localTableName,
      issuer: server.url,
      audience: client.id,
      dynamodbEndpoint: dynamodb.endpoint,
    };
    for (const { name, scope } of operations) {
      const handlerUrl =
        options.handlers?.[name] ??
        new URL(`../functions/${name}/handler.ts`, import.meta.url).href;
      const start = () => startFunction({ ...wiring, handlerUrl, functionName: name, scope }, log);
      functions.set(name, startedOnFirstInvoke(start, limits.warmUpMs));
    }
    const bodyBudgets = {
      vouched: { free: limits.bodyBytesInFlight },
      unvouched: { free: limits.unvouchedBodyBytesInFlight },
    };
    const tokenBackoff = new FailureBackoff(limits.tokenFailures);
    // Only where other machines cannot reach the server may /docs hold a fresh token.
    handler.resolve(
      routes({ issuer, functions, devTokenInDocs: loopbackOnly, bodyBudgets, tokenBackoff }),
    );

    let closing: Promise<void> | undefined;
    const { url } = server;
    return { url, loopbackOnly, issuer, dataDir, webhook, close: () => (closing ??= stopAll()) };
  } catch (error) {
    // Requests held for the start get their 503 before the server drains them.
    handler.resolve(undefined);
    await stopAll().catch(() => undefined);
    throw error;
  }
}
