import { randomUUID } from 'node:crypto';
import { InvokeCommand, type LambdaClient } from '@aws-sdk/client-lambda';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { Operation } from '../operations.ts';
import type { CoreAnswer, CoreRequest, Send } from './core-cases.ts';

/** The route a request reaches: its method and its path as API Gateway writes it (`/plants/{id}`). */
export type Route = Pick<Operation, 'method' | 'path'>;

/** The version crashed, timed out, or answered something API Gateway could not send on. */
export class VersionFailedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'VersionFailedError';
  }
}

const userAgent = 'plant-store-pre-traffic-check';

/** Where the requests for one operation go: a function (a qualified ARN), and the route it serves. */
export type InvokeTarget = {
  readonly functionArn: string;
  readonly route: Route;
};

/**
 * A `send` that hands each request to the function of its operation directly, as API Gateway's
 * HTTP API would for that operation's route (a payload 2.0 event, a synchronous invoke), and reads
 * its answer as API Gateway would. No API stage points at the new version before its traffic
 * shifts, so this is the only way to ask it anything first; a case naming another operation (to
 * create the plant a read checks) goes to that operation's target instead.
 */
export function versionSender(
  lambda: LambdaClient,
  targets: Readonly<Record<string, InvokeTarget>>,
  abortSignal: () => AbortSignal,
): Send {
  return async (request) => {
    const target = Object.hasOwn(targets, request.operation)
      ? targets[request.operation]
      : undefined;
    if (target === undefined) {
      throw new Error(`no function to send ${request.operation}'s request to`);
    }
    const { functionArn, route } = target;
    const accountId = functionArn.split(':')[4] ?? '';
    const { Payload, FunctionError, StatusCode } = await lambda.send(
      new InvokeCommand({
        FunctionName: functionArn,
        InvocationType: 'RequestResponse',
        Payload: JSON.stringify(payloadV2Event(request, accountId, route)),
      }),
      { abortSignal: abortSignal() },
    );
    const text = new TextDecoder().decode(Payload);
    if (FunctionError !== undefined) {
      throw new VersionFailedError(`${functionArn} failed (${FunctionError}): ${errorOf(text)}`);
    }
    if (StatusCode !== 200) {
      throw new VersionFailedError(`${functionArn} was invoked with status ${StatusCode}`);
    }
    return answerOf(text, functionArn);
  };
}

/**
 * An HTTP API request as API Gateway hands it to the integration of `route`, from a caller that is
 * the hook: the route's key, its path parameters, and the query's parameters with a repeated
 * name's values joined by commas, as API Gateway joins them.
 */
export function payloadV2Event(
  request: CoreRequest,
  accountId: string,
  route: Route,
): APIGatewayProxyEventV2 {
  const now = new Date();
  const [rawPath = '/', rawQueryString = ''] = request.path.split('?', 2);
  const routeKey = `${route.method} ${route.path}`;
  const domainName = 'pre-traffic-check.invalid';
  const pathParameters = pathParametersOf(route.path, rawPath);
  const queryStringParameters = queryParametersOf(rawQueryString);
  return {
    version: '2.0',
    routeKey,
    rawPath,
    rawQueryString,
    ...(queryStringParameters === undefined ? {} : { queryStringParameters }),
    ...(pathParameters === undefined ? {} : { pathParameters }),
    headers: {
      ...request.headers,
      host: domainName,
      'user-agent': userAgent,
      'content-length': String(Buffer.byteLength(request.body ?? '')),
    },
    requestContext: {
      accountId,
      apiId: 'pre-traffic-check',
      domainName,
      domainPrefix: 'pre-traffic-check',
      http: {
        method: request.method,
        path: rawPath,
        protocol: 'HTTP/1.1',
        sourceIp: '127.0.0.1',
        userAgent,
      },
      requestId: randomUUID(),
      routeKey,
      stage: '$default',
      time: commonLogTime(now),
      timeEpoch: now.getTime(),
    },
    ...(request.body === undefined ? {} : { body: request.body }),
    isBase64Encoded: false,
  };
}

/** `{id: '42'}` for `/plants/{id}` and `/plants/42`; none for a route without parameters. */
function pathParametersOf(template: string, path: string): Record<string, string> | undefined {
  const names = template.split('/');
  const values = path.split('/');
  const parameters = names.flatMap((name, index) => {
    const parameter = /^\{(\w+)\}$/.exec(name)?.[1];
    return parameter === undefined ? [] : [[parameter, values[index] ?? ''] as const];
  });
  return parameters.length === 0 ? undefined : Object.fromEntries(parameters);
}

function queryParametersOf(query: string): Record<string, string> | undefined {
  if (query === '') return undefined;
  const parameters = new Map<string, string>();
  for (const [name, value] of new URLSearchParams(query)) {
    const earlier = parameters.get(name);
    parameters.set(name, earlier === undefined ? value : `${earlier},${value}`);
  }
  return Object.fromEntries(parameters);
}

/** API Gateway's `requestContext.time`: `22/Nov/2026:16:15:00 +0000`. */
function commonLogTime(date: Date): string {
  const [, day, month, year, time] = date.toUTCString().split(' ');
  return `${day}/${month}/${year}:${time} +0000`;
}

/**
 * The structured result a payload 2.0 integration returns. The API's handlers always return one,
 * so anything else (a bare value API Gateway would wrap, no valid status) is the version's fault.
 */
function answerOf(text: string, functionArn: string): CoreAnswer {
  let result: APIGatewayProxyStructuredResultV2;
  try {
    result = JSON.parse(text) as APIGatewayProxyStructuredResultV2;
  } catch {
    throw new VersionFailedError(`${functionArn} returned no JSON`);
  }
  const status = result?.statusCode;
  if (typeof status !== 'number' || !Number.isInteger(status) || status < 100 || status > 599) {
    throw new VersionFailedError(`${functionArn} returned no HTTP status`);
  }
  const body = result.body ?? '';
  return {
    status,
    headers: Object.fromEntries(
      Object.entries(result.headers ?? {}).map(([name, value]) => [name, String(value)]),
    ),
    body: result.isBase64Encoded ? Buffer.from(body, 'base64').toString('utf8') : body,
  };
}

/** Lambda's error payload: `{errorType, errorMessage, trace}`. */
function errorOf(text: string): string {
  try {
    const { errorType, errorMessage } = JSON.parse(text) as Record<string, unknown>;
    return `${String(errorType)}: ${String(errorMessage)}`;
  } catch {
    return text.slice(0, 200);
  }
}
