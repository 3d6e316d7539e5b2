import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { envNames } from '../../functions/config.ts';
import { createPlantFunctionSettings } from '../function-settings.ts';
import { docsPage, docsPaths, readDocsAsset, specFile, specForOrigin } from './api-docs.ts';
import {
  bareHost,
  baseUrl,
  type DevClient,
  defaults,
  isLoopback,
  LocalConfigError,
} from './config.ts';
import { ensurePrivateDir, lockDataDir } from './data-dir.ts';
import { DevIssuer, issuerPaths, plantsWriteScope } from './dev-issuer.ts';
import { localAwsCredentials, startDynamoDb } from './dynamodb.ts';
import {
  BodyBudget,
  fromResultV2,
  type GatewayResponse,
  gatewayError,
  namesThisServer,
  readBody,
  sourceIp,
  toEventV2,
  writeResponse,
} from './http-gateway.ts';
import { recordIssuer } from './issuer-record.ts';
import { LocalFunction } from './lambda-runtime.ts';
import { type LogFormat, RequestLog } from './request-log.ts';
import { loadOrCreateSigningKey } from './signing-key.ts';

/** The one route of the HTTP API, as the CDK stack declares it. */
export const plantsRoute = { method: 'POST', path: '/plants', key: 'POST /plants' } as const;
export const localTableName = 'plants';
/** In-flight requests get this long to finish at shutdown before their connections are cut. */
const shutdownGraceMs = 5_000;

/** What keeps one local server small and responsive under many clients; tests lower them. */
export interface LocalLimits {
  /** Request bodies held in memory at once, across requests; past it a request gets 429. */
  readonly bodyBytesInFlight: number;
  /** Time to receive a whole request, headers and body; past it Node answers 408 and closes. */
  readonly requestTimeoutMs: number;
  /**
   * How long a request that arrives while the function is still starting is held, as API Gateway
   * holds one during a cold start; past it, 503. Lambda gives an init phase at most 10 s.
   */
  readonly warmUpMs: number;
}

export const defaultLimits: LocalLimits = {
  bodyBytesInFlight: 32 * 1024 * 1024,
  requestTimeoutMs: 30_000,
  warmUpMs: 10_000,
};

export interface LocalApiOptions {
  readonly host: string;
  /** 0 picks a free port, as tests do. */
  readonly port: number;
  /** Where the table and the signing key persist; in memory when absent. */
  readonly dataDir?: string | undefined;
  /** @default local-client / local-secret */
  readonly client?: DevClient;
  /** One line per request, and the function's other log lines; @default console.log */
  readonly log?: (line: string) => void;
  /** @default 'pretty': one human line per request; 'json' adds the function's JSON lines as they are */
  readonly logFormat?: LogFormat;
  /** @default the real handler, functions/create-plant/handler.ts */
  readonly handlerUrl?: string;
  /** @default defaultLimits */
  readonly limits?: Partial<LocalLimits>;
}

export interface LocalApi {
  /** Base URL of the API, also the token issuer, e.g. `http://127.0.0.1:3000`. */
  readonly url: string;
  readonly issuer: DevIssuer;
  readonly dataDir: string | undefined;
  close(): Promise<void>;
}

/**
 * Starts the local stand-in for the AWS deployment: dynalite for the table, a development issuer
 * for Cognito, and an HTTP server that plays API Gateway in front of the unmodified handler.
 */
export async function startLocalApi(options: LocalApiOptions): Promise<LocalApi> {
  const client = options.client ?? { id: defaults.clientId, secret: defaults.clientSecret };
  if (!isLoopback(options.host) && client.secret === defaults.clientSecret) {
    throw new LocalConfigError(
      `HOST ${options.host} lets other machines reach the API, and its token endpoint would hand ` +
        `out tokens for the published default secret "${defaults.clientSecret}": set ` +
        'PLANTS_CLIENT_SECRET to a secret of your own, or leave HOST unset (127.0.0.1).',
    );
  }
  const limits = { ...defaultLimits, ...options.limits };
  const requestLog = new RequestLog(options.log ?? console.log, options.logFormat);
  const cleanup: (() => Promise<void>)[] = [];
  const closeAll = async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  };
  // Requests that arrive before the function is ready wait for this, as on a Lambda cold start.
  const started = Promise.withResolvers<Target | undefined>();

  try {
    if (options.dataDir !== undefined) {
      const lock = await lockDataDir(options.dataDir);
      cleanup.push(() => lock.release());
    }
    const key = await loadOrCreateSigningKey(options.dataDir);
    const storeDir = options.dataDir === undefined ? undefined : join(options.dataDir, 'dynamodb');
    if (storeDir !== undefined) await ensurePrivateDir(storeDir);
    const dynamodb = await startDynamoDb({ dir: storeDir, tableName: localTableName });
    cleanup.push(() => dynamodb.close());

    const bodyBudget = new BodyBudget(limits.bodyBytesInFlight);
    const serverNames = [...ownHostNames, bareHost(options.host)];
    const server = createServer(
      {
        requestTimeout: limits.requestTimeoutMs,
        headersTimeout: Math.min(limits.requestTimeoutMs, 60_000),
        connectionsCheckingInterval: Math.min(limits.requestTimeoutMs, 1_000),
      },
      (req, res) => {
        const receivedAt = performance.now();
        res.on('finish', () => {
          const requestId = res.getHeader('apigw-requestid');
          requestLog.request({
            method: req.method ?? '',
            url: req.url ?? '',
            status: res.statusCode,
            ms: Math.round(performance.now() - receivedAt),
            requestId: typeof requestId === 'string' ? requestId : undefined,
          });
        });
        // Also the address the request came to, so that HOST=0.0.0.0 answers at this machine's IPs.
        const arrivedAt = (req.socket.localAddress ?? '').replace(/^::ffff:/, '');
        const names = [...serverNames, arrivedAt];
        // The socket's own port: `server.address()` is null once the server has begun to close.
        if (!namesThisServer(req.headers.host, req.socket.localPort, names)) {
          res.setHeader('connection', 'close');
          return writeResponse(res, gatewayError(421), newRequestId());
        }
        whenStarted(started.promise, limits.warmUpMs)
          .then((target) =>
            target === undefined
              ? writeResponse(res, gatewayError(503), newRequestId())
              : handle(req, res, target, bodyBudget),
          )
          .catch((error: unknown) => {
            // A client that went away mid-request (or timed out) is not the gateway's failure.
            if (req.socket.destroyed) return;
            console.error('local gateway:', error);
            if (!res.headersSent) writeResponse(res, gatewayError(500), newRequestId());
          });
      },
    );
    await listen(server, options.host, options.port);
    cleanup.push(() => closeServer(server));

    const url = baseUrl(options.host, (server.address() as AddressInfo).port);
    const issuer = new DevIssuer({ issuer: url, key, client });
    if (options.dataDir !== undefined) await recordIssuer(options.dataDir, url);

    const fn = await LocalFunction.start(
      {
        handlerUrl:
          options.handlerUrl ??
          new URL('../../functions/create-plant/handler.ts', import.meta.url).href,
        functionName: 'create-plant',
        region: localAwsCredentials.region,
        memoryMb: createPlantFunctionSettings.memoryMb,
        timeoutMs: createPlantFunctionSettings.timeoutSeconds * 1000,
        relayStdout: true,
      },
      functionEnv({ issuer: url, audience: client.id, dynamodbEndpoint: dynamodb.endpoint }),
      (text) => requestLog.functionOutput(text),
    );
    // Cleanup runs in reverse: the server drains its in-flight requests first, then the function
    // stops, then the store closes (flushing LevelDB), then the data directory is unlocked.
    cleanup.splice(cleanup.length - 1, 0, () => fn.stop());
    started.resolve({ issuer, fn, devTokenInDocs: isLoopback(options.host) });

    let closing: Promise<void> | undefined;
    return {
      url,
      issuer,
      dataDir: options.dataDir,
      close: () => {
        closing ??= closeAll();
        return closing;
      },
    };
  } catch (error) {
    // Requests held for the start get their 503 before the server drains them.
    started.resolve(undefined);
    await closeAll().catch(() => undefined);
    throw error;
  }
}

/** The names every local server answers to, besides its HOST and the address a request came to. */
const ownHostNames = ['127.0.0.1', 'localhost', '::1'];

/** What a request is served with once the function has started. */
interface Target {
  readonly issuer: DevIssuer;
  readonly fn: LocalFunction;
  /** Only a server that other machines cannot reach may hand out a token to whoever asks. */
  readonly devTokenInDocs: boolean;
}

/** The started target, or `undefined` if the start failed or took longer than `boundMs`. */
function whenStarted(
  started: Promise<Target | undefined>,
  boundMs: number,
): Promise<Target | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<undefined>((resolve) => {
    timer = setTimeout(resolve, boundMs, undefined);
  });
  return Promise.race([started, bound]).finally(() => clearTimeout(timer));
}

/**
 * The function's environment, as the CDK stack sets it, plus dummy AWS credentials for dynalite.
 * The developer's own AWS_* variables are left out so that no real profile or endpoint leaks in.
 */
function functionEnv(settings: {
  issuer: string;
  audience: string;
  dynamodbEndpoint: string;
}): Record<string, string> {
  const inherited = Object.entries(process.env).filter(
    (entry): entry is [string, string] => !entry[0].startsWith('AWS_') && entry[1] !== undefined,
  );
  return {
    ...Object.fromEntries(inherited),
    [envNames.tableName]: localTableName,
    [envNames.issuer]: settings.issuer,
    [envNames.audiences]: settings.audience,
    [envNames.scope]: plantsWriteScope,
    [envNames.dynamodbEndpoint]: settings.dynamodbEndpoint,
    AWS_REGION: localAwsCredentials.region,
    AWS_ACCESS_KEY_ID: localAwsCredentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: localAwsCredentials.secretAccessKey,
  };
}

async function handle(
  req: IncomingMessage,
  res: ServerResponse,
  target: Target,
  bodyBudget: BodyBudget,
): Promise<void> {
  const requestId = newRequestId();
  const receivedAt = new Date();
  const path = (req.url ?? '/').split('?')[0] ?? '/';
  const method = req.method ?? 'GET';

  if (method === 'GET' && path === issuerPaths.jwks) {
    return writeResponse(res, json(200, target.issuer.jwks()), requestId);
  }
  if (method === 'GET' && path === issuerPaths.openidConfiguration) {
    return writeResponse(res, json(200, target.issuer.openidConfiguration()), requestId);
  }
  if (method === 'GET' || method === 'HEAD') {
    const docs = await docsResponse(path, target);
    if (docs !== undefined) return writeResponse(res, docs, requestId);
  }
  const isToken = method === 'POST' && path === issuerPaths.token;
  const isPlants = method === plantsRoute.method && path === plantsRoute.path;
  // HTTP API answers an unmatched route, a wrong method included, before it reads the body.
  if (!isToken && !isPlants) return writeResponse(res, gatewayError(404), requestId);

  const body = await readBody(req, bodyBudget);
  if (typeof body === 'number') {
    res.setHeader('connection', 'close');
    if (body === 429) res.setHeader('retry-after', '1');
    return writeResponse(res, gatewayError(body), requestId);
  }
  try {
    if (isToken) {
      const answer = await target.issuer.tokenEndpoint({
        headers: {
          'content-type': req.headers['content-type'],
          authorization: req.headers.authorization,
        },
        body: body.toString('utf8'),
      });
      return writeResponse(res, json(answer.statusCode, answer.body, answer.headers), requestId);
    }
    const event = toEventV2(
      {
        method,
        url: req.url ?? '/',
        httpVersion: req.httpVersion,
        rawHeaders: req.rawHeaders,
        sourceIp: sourceIp(req),
        localPort: req.socket.localPort ?? 0,
      },
      body,
      { requestId, routeKey: plantsRoute.key, receivedAt },
    );
    const invocation = await target.fn.invoke(event);
    // HTTP API answers a failed or timed-out Lambda invocation with a plain 500.
    writeResponse(
      res,
      invocation.ok ? fromResultV2(invocation.result) : gatewayError(500),
      requestId,
    );
  } finally {
    bodyBudget.give(body.length);
  }
}

/**
 * The API reference, a convenience of the local server only: these are not routes of the HTTP API
 * (on AWS the reference is the static page `npm run docs` builds). The policy keeps the page on
 * this origin: the browser itself refuses any request elsewhere.
 */
async function docsResponse(path: string, target: Target): Promise<GatewayResponse | undefined> {
  const { issuer } = target;
  const headers = { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' };
  if (path === docsPaths.page || path === `${docsPaths.page}/`) {
    const devToken = target.devTokenInDocs ? await issuer.mintAccessToken() : undefined;
    const page = docsPage({ kind: 'served', devToken });
    return {
      statusCode: 200,
      headers: {
        ...headers,
        'content-type': 'text/html; charset=utf-8',
        'content-security-policy':
          "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; " +
          "img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'",
      },
      body: Buffer.from(page),
    };
  }
  if (path === docsPaths.spec) {
    const spec = specForOrigin(await readFile(specFile, 'utf8'), issuer.issuer);
    return {
      statusCode: 200,
      headers: { ...headers, 'content-type': 'application/yaml; charset=utf-8' },
      body: Buffer.from(spec),
    };
  }
  if (path.startsWith(docsPaths.assets)) {
    const asset = await readDocsAsset(path.slice(docsPaths.assets.length));
    if (asset === undefined) return undefined;
    return {
      statusCode: 200,
      headers: { ...headers, 'content-type': asset.contentType },
      body: asset.body,
    };
  }
  return undefined;
}

function json(
  statusCode: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = { 'content-type': 'application/json' },
): GatewayResponse {
  return { statusCode, headers, body: Buffer.from(JSON.stringify(body)) };
}

/** Shaped like API Gateway's request ids, e.g. `JKJaXmPLvHcESHA=`. */
function newRequestId(): string {
  return randomBytes(11).toString('base64');
}

function listen(
  server: ReturnType<typeof createServer>,
  host: string,
  port: number,
): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE') {
        reject(
          new LocalConfigError(
            `Port ${port} on ${host} is already in use. Stop whatever uses it, or choose another ` +
              `port with the PORT environment variable, e.g. PORT=${port + 1} npm start`,
            { cause: error },
          ),
        );
      } else if (error.code === 'EADDRNOTAVAIL' || error.code === 'ENOTFOUND') {
        reject(
          new LocalConfigError(`HOST ${host} is not an address of this machine`, { cause: error }),
        );
      } else {
        reject(error);
      }
    });
    server.listen(port, host, () => resolve());
  });
}

async function closeServer(server: ReturnType<typeof createServer>): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const grace = setTimeout(() => server.closeAllConnections(), shutdownGraceMs);
  await closed;
  clearTimeout(grace);
}
