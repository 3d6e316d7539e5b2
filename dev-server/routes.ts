import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  type Operation,
  type OperationName,
  operations,
  routeKey,
} from '../functions/operations.ts';
import { docsResponse } from './api-docs.ts';
import { type DevIssuer, issuerPaths, oauthError } from './dev-issuer.ts';
import type { FailureBackoff } from './failure-backoff.ts';
import type { LocalFunction } from './function-host.ts';
import {
  type BodyBudget,
  fromResultV2,
  type GatewayResponse,
  gatewayError,
  jsonResponse,
  readBody,
  toEventV2,
  writeResponse,
} from './http-gateway.ts';
import type { RequestHandler } from './server.ts';

/** The token endpoint's form is a few short fields; a larger body is refused before it is read. */
const tokenBodyMaxBytes = 4 * 1024;

/**
 * Request bodies held in memory at once, in two shares: one for requests the issuer vouches for
 * (a token it signed, or its client's credentials), one for everyone else, so that uploads
 * without credentials cannot spend what callers with credentials need.
 */
export interface BodyBudgets {
  readonly vouched: BodyBudget;
  readonly unvouched: BodyBudget;
}

/** An operation a request's method and path reach, with the values of its path's `{name}`s. */
export interface MatchedRoute {
  readonly operation: Operation;
  readonly pathParameters: Readonly<Record<string, string>>;
}

/**
 * The operation whose route is this method and path, as an HTTP API matches routes: the method
 * exactly, the path segment by segment, a `{name}` standing for one whole non-empty segment, which
 * reaches the function decoded (a segment that does not decode is passed as sent). A literal
 * segment wins over a parameter. `undefined` for any other method or path, a known path with
 * another method included: API Gateway answers those itself.
 */
export function matchRoute(
  method: string,
  path: string,
  routes: readonly Operation[] = operations,
): MatchedRoute | undefined {
  const segments = path.split('/');
  let best: { route: MatchedRoute; literals: number } | undefined;
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
      pathParameters.set(name, decodedSegment(segment));
      return segment !== '';
    });
    if (matches && (best === undefined || literals > best.literals)) {
      best = { route: { operation, pathParameters: Object.fromEntries(pathParameters) }, literals };
    }
  }
  return best?.route;
}

function decodedSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * Where each request goes: the issuer's JWKS and token endpoint (Cognito's, on AWS), the docs, the
 * function of the operation whose route it matches (functions/operations.ts), or the HTTP API's
 * 404 for anything else. `devTokenInDocs`: whether `/docs` may hold a fresh token, only where other
 * machines cannot reach the server. `tokenBackoff` counts the token endpoint's failed client
 * authentications per client address.
 */
export function routes(targets: {
  issuer: DevIssuer;
  functions: ReadonlyMap<OperationName, LocalFunction>;
  devTokenInDocs: boolean;
  bodyBudgets: BodyBudgets;
  tokenBackoff: FailureBackoff;
}): RequestHandler {
  const { issuer, functions, devTokenInDocs, bodyBudgets } = targets;
  /** The share a request's body is read into: only a request with a body is asked to show who it is. */
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
      return tokenRoute(req, res, { ...targets, budgetFor, sourceIp });
    }
    const route = matchRoute(method, path);
    const fn = route && functions.get(route.operation.name as OperationName);
    // HTTP API answers an unmatched route, a wrong method included, before it reads the body
    // (docs/decisions/0095-unmatched-route-is-404.md).
    if (route === undefined || fn === undefined) return writeResponse(res, gatewayError(404));

    const budget = await budgetFor(req);
    const body = await readBody(req, { budget });
    if (typeof body === 'number') {
      res.setHeader('connection', 'close');
      if (body === 429) res.setHeader('retry-after', '1');
      return writeResponse(res, gatewayError(body));
    }
    try {
      const event = toEventV2(req, body, {
        requestId,
        routeKey: routeKey(route.operation),
        pathParameters: route.pathParameters,
        receivedAt,
        sourceIp,
      });
      // HTTP API answers a failed or timed-out invocation with a plain 500.
      writeResponse(res, fromResultV2(await fn.invoke(event)));
    } finally {
      budget.free += body.length;
    }
  };
}

/**
 * `POST /oauth2/token`: a body past `tokenBodyMaxBytes` is refused before it is read or parsed,
 * and an address that keeps failing client authentication waits (`429 slow_down`, with
 * `Retry-After`) before its next try is even looked at. Refusals close the connection, since the
 * body is left unread.
 */
async function tokenRoute(
  req: IncomingMessage,
  res: ServerResponse,
  targets: {
    issuer: DevIssuer;
    tokenBackoff: FailureBackoff;
    budgetFor: (req: IncomingMessage) => Promise<BodyBudget>;
    sourceIp: string;
  },
): Promise<void> {
  const { issuer, tokenBackoff, budgetFor, sourceIp } = targets;
  const refuse = (answer: GatewayResponse) => {
    res.setHeader('connection', 'close');
    writeResponse(res, answer);
  };
  if (Number(req.headers['content-length'] ?? 0) > tokenBodyMaxBytes) {
    return refuse(oauthError(413, 'invalid_request'));
  }
  const wait = tokenBackoff.retryAfterSeconds(sourceIp);
  // RFC 8628's `slow_down`: the registered OAuth error for a client that asks too often.
  if (wait > 0) return refuse(oauthError(429, 'slow_down', { 'retry-after': String(wait) }));
  const budget = await budgetFor(req);
  const body = await readBody(req, { budget, limit: tokenBodyMaxBytes });
  if (body === 413) return refuse(oauthError(413, 'invalid_request'));
  if (body === 429) {
    res.setHeader('retry-after', '1');
    return refuse(gatewayError(429));
  }
  try {
    const answer = await issuer.tokenEndpoint({
      contentType: req.headers['content-type'],
      authorization: req.headers.authorization,
      body: body.toString('utf8'),
    });
    if (answer.statusCode === 401) tokenBackoff.failed(sourceIp);
    writeResponse(res, answer);
  } finally {
    budget.free += body.length;
  }
}
