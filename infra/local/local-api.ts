import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createPlantFunctionSettings } from '../function-settings.ts';
import { docsPage, docsPaths, readDocsAsset, specFile, specForOrigin } from './api-docs.ts';
import { baseUrl, type DevClient, defaults, LocalConfigError } from './config.ts';
import { lockDataDir } from './data-dir.ts';
import { DevIssuer, issuerPaths, plantsWriteScope } from './dev-issuer.ts';
import { localAwsCredentials, startDynamoDb } from './dynamodb.ts';
import {
  fromResultV2,
  type GatewayResponse,
  gatewayError,
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
  const requestLog = new RequestLog(options.log ?? console.log, options.logFormat);
  const cleanup: (() => Promise<void>)[] = [];
  const closeAll = async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  };

  try {
    if (options.dataDir !== undefined) {
      const lock = await lockDataDir(options.dataDir);
      cleanup.push(() => lock.release());
    }
    const key = await loadOrCreateSigningKey(options.dataDir);
    const dynamodb = await startDynamoDb({
      dir: options.dataDir === undefined ? undefined : join(options.dataDir, 'dynamodb'),
      tableName: localTableName,
    });
    cleanup.push(() => dynamodb.close());

    let route: (req: IncomingMessage, res: ServerResponse) => Promise<void> = async (_req, res) => {
      writeResponse(res, gatewayError(503), newRequestId());
    };
    const server = createServer((req, res) => {
      const started = performance.now();
      res.on('finish', () => {
        const requestId = res.getHeader('apigw-requestid');
        requestLog.request({
          method: req.method ?? '',
          url: req.url ?? '',
          status: res.statusCode,
          ms: Math.round(performance.now() - started),
          requestId: typeof requestId === 'string' ? requestId : undefined,
        });
      });
      route(req, res).catch((error: unknown) => {
        console.error('local gateway:', error);
        if (!res.headersSent) writeResponse(res, gatewayError(500), newRequestId());
      });
    });
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
    route = (req, res) => handle(req, res, { issuer, fn });

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
    await closeAll().catch(() => undefined);
    throw error;
  }
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
    PLANTS_TABLE_NAME: localTableName,
    AUTH_ISSUER: settings.issuer,
    AUTH_AUDIENCE: settings.audience,
    AUTH_SCOPE: plantsWriteScope,
    AWS_ENDPOINT_URL_DYNAMODB: settings.dynamodbEndpoint,
    AWS_REGION: localAwsCredentials.region,
    AWS_ACCESS_KEY_ID: localAwsCredentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: localAwsCredentials.secretAccessKey,
  };
}

async function handle(
  req: IncomingMessage,
  res: ServerResponse,
  target: { issuer: DevIssuer; fn: LocalFunction },
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
    const docs = await docsResponse(path, target.issuer);
    if (docs !== undefined) return writeResponse(res, docs, requestId);
  }
  const isToken = method === 'POST' && path === issuerPaths.token;
  const isPlants = method === plantsRoute.method && path === plantsRoute.path;
  // HTTP API answers an unmatched route, a wrong method included, before it reads the body.
  if (!isToken && !isPlants) return writeResponse(res, gatewayError(404), requestId);

  const body = await readBody(req);
  if (body === undefined) {
    res.setHeader('connection', 'close');
    return writeResponse(res, gatewayError(413), requestId);
  }
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
}

/**
 * The API reference, a convenience of the local server only: these are not routes of the HTTP API
 * (on AWS the reference is the static page `npm run docs` builds). The policy keeps the page on
 * this origin: the browser itself refuses any request elsewhere.
 */
async function docsResponse(path: string, issuer: DevIssuer): Promise<GatewayResponse | undefined> {
  const headers = { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' };
  if (path === docsPaths.page || path === `${docsPaths.page}/`) {
    const page = docsPage({ kind: 'served', devToken: await issuer.mintAccessToken() });
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
