import type { IncomingMessage, ServerResponse } from 'node:http';
import { type Operation, operations, routeKey } from '../functions/operations.ts';
import { docsResponse } from './api-docs.ts';
import { type DevIssuer, issuerPaths, oauthError } from './dev-issuer.ts';
import type { FailureBackoff } from './failure-backoff.ts';
import { type LocalFunction, stillStarting } from './function-host.ts';
import {
  type BodyBudget,
  fromResultV2,
  type GatewayResponse,
  gatewayError,
  jsonResponse,
  readBody,
  refuse,
  toEventV2,
  uriDecoded,
  writeResponse,
} from './http-gateway.ts';
import type { RequestHandler } from './server.ts';

/** The token endpoint's form is a few short fields; a larger body is refused before it is read. */
const tokenBodyMaxBytes = 4 * 1024;

/** The operation whose route matches, as an HTTP API matches: a literal segment beats `{name}`. */
export function matchRoute(
  method: string,
  path: string,
  routes: readonly Operation[] = operations,
): { operation: Operation; pathParameters: Record<string, string> } | undefined {
  const segments = path.split('/');
  let best: ReturnType<typeof matchRoute>;
  let bestLiterals = -1;
  for (const operation of routes) {
    if (operation.method !== method) continue;
    const template = operation.path.split('/');
    if (template.length !== segments.length) continue;
    const pathParameters = new Map<string, string>();
    let literals = 0;
    const matches = template.every((part, index) => {
      const segment = segments[index] ?? '';
      const name = /^\{([^{}]+)\}$/.exec(part)?.[1];
      if (name === undefined) {
        literals += 1;
        return part === segment;
      }
      pathParameters.set(name, uriDecoded(segment));
      return segment !== '';
    });
    if (matches && literals > bestLiterals) {
      best = { operation, pathParameters: Object.fromEntries(pathParameters) };
      bestLiterals = literals;
    }
  }
  return best;
}

export function routes(targets: {
  issuer: DevIssuer;
  functions: ReadonlyMap<string, LocalFunction>;
  devTokenInDocs: boolean;
  bodyBudgets: { vouched: BodyBudget; unvouched: BodyBudget };
  tokenBackoff: FailureBackoff;
}): RequestHandler {
  const { issuer, functions, devTokenInDocs, bodyBudgets, tokenBackoff } = targets;
  const budgetFor = async (req: IncomingMessage): Promise<BodyBudget> => {
    const { 'content-length': length, 'transfer-encoding': chunked } = req.headers;
    const empty = chunked === undefined && (length === undefined || Number(length) === 0);
    const vouched = empty || (await issuer.vouchesFor(req.headers.authorization));
    return vouched ? bodyBudgets.vouched : bodyBudgets.unvouched;
  };
  return async (req, res, requestId) => {
    const receivedAt = new Date();
    const method = req.method ?? 'GET';
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (method === 'GET' && path === issuerPaths.jwks) {
      return writeResponse(res, jsonResponse(200, issuer.jwks()));
    }
    if (method === 'GET' || method === 'HEAD') {
      const docs = await docsResponse(path, issuer, devTokenInDocs);
      if (docs !== undefined) return writeResponse(res, docs);
    }
    const sourceIp = (req.socket.remoteAddress ?? '127.0.0.1').replace(/^::ffff:/, '');
    if (method === 'POST' && path === issuerPaths.token) {
      const wait = tokenBackoff.retryAfterSeconds(sourceIp);
      if (wait > 0) return refuse(res, oauthError(429, 'slow_down'), { 'retry-after': `${wait}` });
      const limits = { limit: tokenBodyMaxBytes, tooLarge: oauthError(413, 'invalid_request') };
      return answerWithBody(req, res, await budgetFor(req), limits, async (body) => {
        const answer = await issuer.tokenEndpoint({
          contentType: req.headers['content-type'],
          authorization: req.headers.authorization,
          body: body.toString('utf8'),
        });
        if (answer.statusCode === 401) tokenBackoff.failed(sourceIp);
        return answer;
      });
    }
    const route = matchRoute(method, path);
    const fn = route && functions.get(route.operation.name);
    // Before the body is read, as HTTP API (docs/decisions/0095-unmatched-route-is-404.md).
    if (route === undefined || fn === undefined) return writeResponse(res, gatewayError(404));
    return answerWithBody(req, res, await budgetFor(req), {}, async (body) => {
      const event = toEventV2(req, body, {
        requestId,
        routeKey: routeKey(route.operation),
        pathParameters: route.pathParameters,
        receivedAt,
        sourceIp,
      });
      const result = await fn.invoke(event);
      // HTTP API answers a failed or timed-out invocation with a plain 500.
      return result === stillStarting ? gatewayError(503) : fromResultV2(result);
    });
  };
}

/** `answer`'s response to the body read into `budget`; `tooLarge` or 429 when it cannot be. */
async function answerWithBody(
  req: IncomingMessage,
  res: ServerResponse,
  budget: BodyBudget,
  { limit, tooLarge = gatewayError(413) }: { limit?: number; tooLarge?: GatewayResponse },
  answer: (body: Buffer) => Promise<GatewayResponse>,
): Promise<void> {
  const body = await readBody(req, { budget, limit });
  if (body === 413) return refuse(res, tooLarge);
  if (body === 429) return refuse(res, gatewayError(429), { 'retry-after': '1' });
  try {
    writeResponse(res, await answer(body));
  } finally {
    budget.free += body.length;
  }
}
