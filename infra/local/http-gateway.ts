import type { IncomingMessage, ServerResponse } from 'node:http';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

/** API Gateway HTTP APIs accept request payloads up to 10 MB; the handler enforces its own, smaller limit. */
export const maxRequestBytes = 10 * 1024 * 1024;

/** The parts of an HTTP request that the event is made of; `rawHeaders` keeps repeats and order. */
export interface RawRequest {
  readonly method: string;
  /** The request target as sent: path and query string. */
  readonly url: string;
  readonly httpVersion: string;
  /** Alternating names and values, as `IncomingMessage.rawHeaders`. */
  readonly rawHeaders: readonly string[];
  readonly sourceIp: string;
  /** The port the request arrived on, for `x-forwarded-port`. */
  readonly localPort: number;
}

export interface EventContext {
  readonly requestId: string;
  readonly routeKey: string;
  readonly receivedAt: Date;
}

/**
 * One HTTP request as API Gateway HTTP API hands it to Lambda with payload format 2.0: header names
 * lower-cased, repeated headers joined with commas, the `cookie` header moved into `cookies`, and the
 * body as text only when it is UTF-8 text by its content type, else base64.
 */
export function toEventV2(
  request: RawRequest,
  body: Buffer,
  context: EventContext,
): APIGatewayProxyEventV2 {
  const { headers, cookies } = joinHeaders(request.rawHeaders);
  // The gateway tells the function where the request came from, overwriting what the client sent.
  headers['x-forwarded-for'] = request.sourceIp;
  headers['x-forwarded-port'] = String(request.localPort);
  headers['x-forwarded-proto'] = 'http';
  const queryStart = request.url.indexOf('?');
  const rawPath = queryStart < 0 ? request.url : request.url.slice(0, queryStart);
  const rawQueryString = queryStart < 0 ? '' : request.url.slice(queryStart + 1);
  const domainName = (headers.host ?? 'localhost').replace(/:\d+$/, '');
  const queryStringParameters = parseQuery(rawQueryString);
  const text = body.length > 0 && isTextBody(headers['content-type'], body);
  return {
    version: '2.0',
    routeKey: context.routeKey,
    rawPath,
    rawQueryString,
    ...(cookies.length > 0 ? { cookies } : {}),
    headers,
    ...(queryStringParameters ? { queryStringParameters } : {}),
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      domainName,
      domainPrefix: domainName.split('.')[0] ?? domainName,
      http: {
        method: request.method,
        path: rawPath,
        protocol: `HTTP/${request.httpVersion}`,
        sourceIp: request.sourceIp,
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: context.requestId,
      routeKey: context.routeKey,
      stage: '$default',
      time: clfTime(context.receivedAt),
      timeEpoch: context.receivedAt.getTime(),
    },
    ...(body.length > 0 ? { body: body.toString(text ? 'utf8' : 'base64') } : {}),
    isBase64Encoded: body.length > 0 && !text,
  };
}

/** The HTTP response API Gateway makes of a function's payload 2.0 result. */
export interface GatewayResponse {
  readonly statusCode: number;
  readonly headers: Readonly<Record<string, string | readonly string[]>>;
  readonly body: Buffer;
}

/**
 * A structured result maps field by field (cookies become Set-Cookie headers); any other JSON value
 * is, as API Gateway documents, a 200 `application/json` response whose body is that value.
 */
export function fromResultV2(result: unknown): GatewayResponse {
  if (!isStructuredResult(result)) {
    const body = typeof result === 'string' ? result : (JSON.stringify(result) ?? 'null');
    return {
      statusCode: 200,
      headers: { 'content-type': 'application/json' },
      body: Buffer.from(body),
    };
  }
  const { statusCode } = result;
  if (
    statusCode === undefined ||
    !Number.isInteger(statusCode) ||
    statusCode < 100 ||
    statusCode > 599
  ) {
    return gatewayError(500);
  }
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(result.headers ?? {})) {
    headers[name.toLowerCase()] = String(value);
  }
  if (result.cookies && result.cookies.length > 0) headers['set-cookie'] = [...result.cookies];
  const body = Buffer.from(result.body ?? '', result.isBase64Encoded ? 'base64' : 'utf8');
  return { statusCode, headers, body };
}

const gatewayMessages = {
  404: 'Not Found',
  413: 'Request Entity Too Large',
  421: 'Misdirected Request',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
} as const;

/** The gateway's own answers, in its own shape: `{"message": ...}`, not the API's Error. */
export function gatewayError(statusCode: keyof typeof gatewayMessages): GatewayResponse {
  return {
    statusCode,
    headers: { 'content-type': 'application/json' },
    body: Buffer.from(JSON.stringify({ message: gatewayMessages[statusCode] })),
  };
}

/**
 * Whether a request's `Host` names this server: one of `names` (host names or bare addresses) on
 * `port`. A page on another name that resolves to loopback (DNS rebinding) is not answered.
 */
export function namesThisServer(
  host: string | undefined,
  port: number | undefined,
  names: readonly string[],
): boolean {
  const sent = host?.toLowerCase();
  return names.some((name) => {
    const bracketed = name.includes(':') ? `[${name}]` : name;
    return sent === `${bracketed}:${port}` || (port === 80 && sent === bracketed);
  });
}

export function writeResponse(
  res: ServerResponse,
  response: GatewayResponse,
  requestId: string,
): void {
  res.statusCode = response.statusCode;
  for (const [name, value] of Object.entries(response.headers)) res.setHeader(name, value);
  res.setHeader('apigw-requestid', requestId);
  res.setHeader('content-length', response.body.length);
  res.end(response.body);
}

/**
 * The bytes of request bodies held in memory at once, across all requests: many slow uploads of up
 * to 10 MB each would otherwise grow the process without bound.
 */
export class BodyBudget {
  #free: number;

  constructor(bytes: number) {
    this.#free = bytes;
  }

  take(bytes: number): boolean {
    if (bytes > this.#free) return false;
    this.#free -= bytes;
    return true;
  }

  give(bytes: number): void {
    this.#free += bytes;
  }
}

/**
 * The whole body, taken from `budget` (the caller gives `body.length` back when done with it), or
 * why not: 413 once it passes `limit` bytes, 429 when the budget is spent. The rest is left unread.
 */
export async function readBody(
  req: IncomingMessage,
  budget: BodyBudget,
  limit: number = maxRequestBytes,
): Promise<Buffer | 413 | 429> {
  if (Number(req.headers['content-length'] ?? 0) > limit) return 413;
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of req as AsyncIterable<Buffer>) {
      if (size + chunk.length > limit || !budget.take(chunk.length)) {
        budget.give(size);
        return size + chunk.length > limit ? 413 : 429;
      }
      size += chunk.length;
      chunks.push(chunk);
    }
  } catch (error) {
    // The client went away (or timed out) mid-body.
    budget.give(size);
    throw error;
  }
  return Buffer.concat(chunks, size);
}

export function sourceIp(req: IncomingMessage): string {
  const address = req.socket.remoteAddress ?? '127.0.0.1';
  return address.startsWith('::ffff:') ? address.slice('::ffff:'.length) : address;
}

function joinHeaders(rawHeaders: readonly string[]): {
  headers: Record<string, string>;
  cookies: string[];
} {
  const headers: Record<string, string> = {};
  const cookies: string[] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = (rawHeaders[i] as string).toLowerCase();
    const value = rawHeaders[i + 1] as string;
    if (name === 'cookie') {
      cookies.push(
        ...value
          .split(';')
          .map((cookie) => cookie.trim())
          .filter(Boolean),
      );
      continue;
    }
    const previous = headers[name];
    headers[name] = previous === undefined ? value : `${previous},${value}`;
  }
  return { headers, cookies };
}

/** Decoded values, repeats joined with commas, as in `queryStringParameters`; absent when empty. */
function parseQuery(rawQueryString: string): Record<string, string> | undefined {
  if (rawQueryString === '') return undefined;
  const parameters: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(rawQueryString)) {
    const previous = parameters[name];
    parameters[name] = previous === undefined ? value : `${previous},${value}`;
  }
  return Object.keys(parameters).length > 0 ? parameters : undefined;
}

const textMediaTypes = new Set([
  'application/json',
  'application/xml',
  'application/javascript',
  'application/x-www-form-urlencoded',
  'application/graphql',
  'application/yaml',
]);

const utf8 = new TextDecoder('utf-8', { fatal: true });

function isTextBody(contentType: string | undefined, body: Buffer): boolean {
  const mediaType = contentType?.split(';')[0]?.trim().toLowerCase() ?? '';
  const textual =
    mediaType.startsWith('text/') ||
    textMediaTypes.has(mediaType) ||
    mediaType.endsWith('+json') ||
    mediaType.endsWith('+xml');
  if (!textual) return false;
  try {
    utf8.decode(body);
    return true;
  } catch {
    return false;
  }
}

const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** `requestContext.time`: the Common Log Format date, e.g. `12/Mar/2020:19:03:58 +0000`. */
function clfTime(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return (
    `${pad(date.getUTCDate())}/${months[date.getUTCMonth()]}/${date.getUTCFullYear()}:` +
    `${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())} +0000`
  );
}

function isStructuredResult(result: unknown): result is APIGatewayProxyStructuredResultV2 {
  return typeof result === 'object' && result !== null && 'statusCode' in result;
}
