import { isUtf8 } from 'node:buffer';
import { type IncomingMessage, type ServerResponse, STATUS_CODES } from 'node:http';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

/** HTTP API's payload limit; the handler enforces its own, smaller one. */
const maxRequestBytes = 10 * 1024 * 1024;

export type RawRequest = Pick<IncomingMessage, 'method' | 'url' | 'httpVersion' | 'rawHeaders'>;

/** One request as an HTTP API hands it to Lambda (payload 2.0), as far as a handler can tell. */
export function toEventV2(
  request: RawRequest,
  body: Buffer,
  context: {
    readonly requestId: string;
    readonly routeKey: string;
    readonly pathParameters: Readonly<Record<string, string>>;
    readonly receivedAt: Date;
    readonly sourceIp: string;
  },
): APIGatewayProxyEventV2 {
  const { rawHeaders } = request;
  const headers = joined(
    rawHeaders.flatMap((name, i) => (i % 2 ? [] : [[name.toLowerCase(), rawHeaders[i + 1] ?? '']])),
  );
  const [, rawPath = '/', rawQueryString = ''] = /^([^?]*)\??(.*)$/s.exec(request.url ?? '/') ?? [];
  const query = joined(new URLSearchParams(rawQueryString));
  const domainName = (headers.host ?? 'localhost').replace(/:\d+$/, '');
  const mediaType = headers['content-type']?.split(';')[0]?.trim().toLowerCase() ?? '';
  const text = /^(text\/.+|application\/(.+\+)?json)$/.test(mediaType) && isUtf8(body);
  // `Thu, 12 Mar 2020 19:03:58 GMT` -> `12/Mar/2020:19:03:58 +0000`, the format API Gateway sends.
  const [, day, month, year, time] = context.receivedAt.toUTCString().split(' ');
  return {
    version: '2.0',
    routeKey: context.routeKey,
    rawPath,
    rawQueryString,
    headers,
    ...(Object.keys(query).length > 0 && { queryStringParameters: query }),
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      domainName,
      domainPrefix: domainName.split('.')[0] ?? domainName,
      http: {
        method: request.method ?? 'GET',
        path: rawPath,
        protocol: `HTTP/${request.httpVersion}`,
        sourceIp: context.sourceIp,
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: context.requestId,
      routeKey: context.routeKey,
      stage: '$default',
      time: `${day}/${month}/${year}:${time} +0000`,
      timeEpoch: context.receivedAt.getTime(),
    },
    ...(Object.keys(context.pathParameters).length > 0
      ? { pathParameters: { ...context.pathParameters } }
      : {}),
    ...(body.length > 0 ? { body: body.toString(text ? 'utf8' : 'base64') } : {}),
    isBase64Encoded: body.length > 0 && !text,
  };
}

function joined(pairs: Iterable<readonly [string, string]>): Record<string, string> {
  const values = new Map<string, string>();
  for (const [name, value] of pairs) {
    const earlier = values.get(name);
    values.set(name, earlier === undefined ? value : `${earlier},${value}`);
  }
  // Built from entries, so that a name such as `__proto__` is a member like any other.
  return Object.fromEntries(values);
}

/** `decodeURIComponent`, or `text` as it is where it is no valid percent-encoding. */
export function uriDecoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

export interface GatewayResponse {
  readonly statusCode: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
}

export function fromResultV2(result: unknown): GatewayResponse {
  const answer = (result ?? {}) as APIGatewayProxyStructuredResultV2;
  const { statusCode = 0, headers = {}, body = '', isBase64Encoded } = answer;
  const valid = Number.isInteger(statusCode) && statusCode >= 100 && statusCode <= 599;
  if (!valid) return gatewayError(500);
  return {
    statusCode,
    headers: Object.fromEntries(
      Object.entries(headers).map(([name, value]) => [name.toLowerCase(), String(value)]),
    ),
    body: Buffer.from(body, isBase64Encoded ? 'base64' : 'utf8'),
  };
}

/** The gateway's own answers, in its own shape: `{"message": ...}`, not the API's Error. */
export function gatewayError(
  statusCode: 400 | 404 | 408 | 413 | 417 | 421 | 429 | 431 | 500 | 503,
): GatewayResponse {
  // HTTP API's name for a 413, where Node's is RFC 9110's.
  const message = statusCode === 413 ? 'Request Entity Too Large' : STATUS_CODES[statusCode];
  return jsonResponse(statusCode, { message });
}

export function jsonResponse(
  statusCode: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = { 'content-type': 'application/json' },
): GatewayResponse {
  return { statusCode, headers, body: Buffer.from(JSON.stringify(body)) };
}

export function writeResponse(res: ServerResponse, response: GatewayResponse): void {
  res.statusCode = response.statusCode;
  for (const [name, value] of Object.entries(response.headers)) res.setHeader(name, value);
  // RFC 9110 8.6: a 204 or 304 has no content and carries no Content-Length.
  if (response.statusCode === 204 || response.statusCode === 304) {
    res.removeHeader('content-length');
    return void res.end();
  }
  res.setHeader('content-length', response.body.length);
  res.end(response.body);
}

export function refuse(res: ServerResponse, answer: GatewayResponse, headers = {}): void {
  res.setHeader('connection', 'close');
  writeResponse(res, { ...answer, headers: { ...answer.headers, ...headers } });
}

export type BodyBudget = { free: number };
type BodyLimits = { readonly limit?: number; readonly budget?: BodyBudget };

/** The whole body from `budget` (given back by the caller), or 413 past `limit`, 429 when spent. */
export async function readBody(
  req: IncomingMessage,
  { limit = maxRequestBytes, budget = { free: Number.POSITIVE_INFINITY } }: BodyLimits = {},
): Promise<Buffer | 413 | 429> {
  if (Number(req.headers['content-length'] ?? 0) > limit) return 413;
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of req as AsyncIterable<Buffer>) {
      if (size + chunk.length > limit || chunk.length > budget.free) {
        budget.free += size;
        return size + chunk.length > limit ? 413 : 429;
      }
      budget.free -= chunk.length;
      size += chunk.length;
      chunks.push(chunk);
    }
  } catch (error) {
    budget.free += size;
    throw error;
  }
  return Buffer.concat(chunks, size);
}
