import { randomUUID } from 'node:crypto';
import { InvokeCommand, type LambdaClient } from '@aws-sdk/client-lambda';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { CheckAnswer, CheckRequest, Send } from '../checks/runner.ts';
import { type Operation, routeKey } from '../operation.ts';
import { jsonObject } from './client-credentials.ts';

export type Route = Pick<Operation, 'method' | 'path'>;

export class VersionFailedError extends Error {
  override name = 'VersionFailedError';
}

const userAgent = 'plant-store-pre-traffic-check';

/** Invokes the version as API Gateway would: no stage points at it before its traffic shifts. */
export function versionSender(
  lambda: LambdaClient,
  functionArn: string,
  route: Route,
  abortSignal: () => AbortSignal,
): Send {
  const accountId = functionArn.split(':')[4] ?? '';
  return async (request) => {
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
      // Lambda's error payload: `{errorType, errorMessage, trace}`.
      const { errorType, errorMessage } = jsonObject(text);
      const error = errorType === undefined ? text.slice(0, 200) : `${errorType}: ${errorMessage}`;
      throw new VersionFailedError(`${functionArn} failed (${FunctionError}): ${error}`);
    }
    if (StatusCode !== 200) {
      throw new VersionFailedError(`${functionArn} was invoked with status ${StatusCode}`);
    }
    // The API's handlers always return a structured result: anything else is the version's fault.
    const result = jsonObject(text) as APIGatewayProxyStructuredResultV2;
    const status = result.statusCode;
    if (!Number.isInteger(status) || Number(status) < 100 || Number(status) > 599) {
      throw new VersionFailedError(`${functionArn} returned no HTTP status`);
    }
    const body = result.body ?? '';
    return {
      status: Number(status),
      headers: Object.fromEntries(
        Object.entries(result.headers ?? {}).map(([name, value]) => [name, String(value)]),
      ),
      body: result.isBase64Encoded ? Buffer.from(body, 'base64').toString('utf8') : body,
    } satisfies CheckAnswer;
  };
}

/** As API Gateway builds it, a repeated query name's values joined by commas. */
export function payloadV2Event(
  request: CheckRequest,
  accountId: string,
  route: Route,
): APIGatewayProxyEventV2 {
  const now = new Date();
  const [rawPath = '/', rawQueryString = ''] = request.path.split('?', 2);
  const domainName = 'pre-traffic-check.invalid';
  const values = rawPath.split('/');
  const pathParameters = Object.fromEntries(
    route.path.split('/').flatMap((part, index) => {
      const name = /^\{(\w+)\}$/.exec(part)?.[1];
      return name === undefined ? [] : [[name, values[index] ?? '']];
    }),
  );
  const query = new Map<string, string>();
  for (const [name, value] of new URLSearchParams(rawQueryString)) {
    const earlier = query.get(name);
    query.set(name, earlier === undefined ? value : `${earlier},${value}`);
  }
  // API Gateway's `requestContext.time`: `22/Nov/2026:16:15:00 +0000`.
  const [, day, month, year, time] = now.toUTCString().split(' ');
  return {
    version: '2.0',
    routeKey: routeKey(route),
    rawPath,
    rawQueryString,
    ...(query.size === 0 ? {} : { queryStringParameters: Object.fromEntries(query) }),
    ...(Object.keys(pathParameters).length === 0 ? {} : { pathParameters }),
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
      routeKey: routeKey(route),
      stage: '$default',
      time: `${day}/${month}/${year}:${time} +0000`,
      timeEpoch: now.getTime(),
    },
    ...(request.body === undefined ? {} : { body: request.body }),
    isBase64Encoded: false,
  };
}
