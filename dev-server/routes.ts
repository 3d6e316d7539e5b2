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

/** The one route of the HTTP API, as the CDK stack declares it. */
const plantsRouteKey = 'POST /plants';

/**
 * Where each request goes: the issuer's JWKS and token endpoint (Cognito's, on AWS), the docs, the
 * function behind `POST /plants`, or the HTTP API's 404 for anything else. `devTokenInDocs`: whether
 * `/docs` may hold a fresh token, only where other machines cannot reach the server.
 */
export function routes(targets: {
  issuer: DevIssuer;
  fn: LocalFunction;
  devTokenInDocs: boolean;
  bodyBudget: BodyBudget;
}): RequestHandler {
  const { issuer, fn, devTokenInDocs, bodyBudget } = targets;
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
    const isPlants = `${method} ${path}` === plantsRouteKey;
    // HTTP API answers an unmatched route, a wrong method included, before it reads the body.
    if (!isToken && !isPlants) return writeResponse(res, gatewayError(404));

    const body = await readBody(req, bodyBudget);
    if (typeof body === 'number') {
      res.setHeader('connection', 'close');
      if (body === 429) res.setHeader('retry-after', '1');
      return writeResponse(res, gatewayError(body));
    }
    try {
      if (isToken) {
        const { headers } = req;
        const answer = await issuer.tokenEndpoint({
          contentType: headers['content-type'],
          authorization: headers.authorization,
          body: body.toString('utf8'),
        });
        return writeResponse(res, answer);
      }
      const sourceIp = (req.socket.remoteAddress ?? '127.0.0.1').replace(/^::ffff:/, '');
      const context = { requestId, routeKey: plantsRouteKey, receivedAt, sourceIp };
      const event = toEventV2(req, body, context);
      // HTTP API answers a failed or timed-out invocation with a plain 500.
      writeResponse(res, fromResultV2(await fn.invoke(event)));
    } finally {
      bodyBudget.free += body.length;
    }
  };
}
