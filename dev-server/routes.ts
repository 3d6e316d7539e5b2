import {
  type Operation,
  type OperationName,
  operations,
  routeKey,
} from '../functions/operations.ts';
import { type DevIssuer, issuerPaths } from './dev-issuer.ts';
import { docsResponse } from './docs-route.ts';
import type { LocalFunction } from './function-host.ts';
import {
  type BodyBudget,
  fromResultV2,
  gatewayError,
  jsonResponse,
  readBody,
  toEventV2,
  writeResponse,
} from './http-gateway.ts';
import type { RequestHandler } from './server.ts';

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
 * machines cannot reach the server.
 */
export function routes(targets: {
  issuer: DevIssuer;
  functions: ReadonlyMap<OperationName, LocalFunction>;
  devTokenInDocs: boolean;
  bodyBudget: BodyBudget;
}): RequestHandler {
  const { issuer, functions, devTokenInDocs, bodyBudget } = targets;
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
    const isToken = method === 'POST' && path === issuerPaths.token;
    const route = isToken ? undefined : matchRoute(method, path);
    const fn = route && functions.get(route.operation.name as OperationName);
    // HTTP API answers an unmatched route, a wrong method included, before it reads the body
    // (docs/decisions/0095-unmatched-route-is-404.md).
    if (!isToken && fn === undefined) return writeResponse(res, gatewayError(404));

    const body = await readBody(req, bodyBudget);
    if (typeof body === 'number') {
      res.setHeader('connection', 'close');
      if (body === 429) res.setHeader('retry-after', '1');
      return writeResponse(res, gatewayError(body));
    }
    try {
      if (isToken || route === undefined || fn === undefined) {
        const { headers } = req;
        const answer = await issuer.tokenEndpoint({
          contentType: headers['content-type'],
          authorization: headers.authorization,
          body: body.toString('utf8'),
        });
        return writeResponse(res, answer);
      }
      const sourceIp = (req.socket.remoteAddress ?? '127.0.0.1').replace(/^::ffff:/, '');
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
      bodyBudget.free += body.length;
    }
  };
}
