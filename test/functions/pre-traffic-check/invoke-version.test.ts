import type { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import type { CheckRequest } from '../../../functions/checks/runner.ts';
import { operationNamed as route } from '../../../functions/operations.ts';
import {
  payloadV2Event,
  VersionFailedError,
  versionSender,
} from '../../../functions/pre-traffic-check/invoke-version.ts';

describe('payloadV2Event', () => {
  it("names the route's key, not the path, and the path's parameters", () => {
    const event = payloadV2Event(
      {
        method: 'DELETE',
        path: '/plants/-42',
        headers: { authorization: 'Bearer t' },
      },
      '123456789012',
      route('delete-plant'),
    );

    expect(event).toMatchObject({
      version: '2.0',
      routeKey: 'DELETE /plants/{id}',
      rawPath: '/plants/-42',
      rawQueryString: '',
      pathParameters: { id: '-42' },
      requestContext: {
        routeKey: 'DELETE /plants/{id}',
        http: { method: 'DELETE', path: '/plants/-42' },
      },
      headers: { authorization: 'Bearer t', 'content-length': '0' },
      isBase64Encoded: false,
    });
    expect(event).not.toHaveProperty('queryStringParameters');
    expect(event).not.toHaveProperty('body');
  });

  it("joins a repeated query parameter's values with commas, decoded, as API Gateway does", () => {
    const event = payloadV2Event(
      {
        method: 'GET',
        path: '/plants?limit=1&limit=2&cursor=a%2Bb%3D',
        headers: {},
      },
      '123456789012',
      route('list-plants'),
    );

    expect(event).toMatchObject({
      routeKey: 'GET /plants',
      rawPath: '/plants',
      rawQueryString: 'limit=1&limit=2&cursor=a%2Bb%3D',
      queryStringParameters: { limit: '1,2', cursor: 'a+b=' },
    });
    expect(event).not.toHaveProperty('pathParameters');
  });

  it('keeps a parameter named like a property of every object as a parameter of its own', () => {
    const event = payloadV2Event(
      {
        method: 'GET',
        path: '/plants?__proto__=1&constructor=2',
        headers: {},
      },
      '123456789012',
      route('list-plants'),
    );

    expect(Object.entries(event.queryStringParameters ?? {})).toEqual([
      ['__proto__', '1'],
      ['constructor', '2'],
    ]);
  });

  it('hands a body on with its length', () => {
    const event = payloadV2Event(
      {
        method: 'POST',
        path: '/plants',
        headers: {},
        body: '{"id":1,"name":"Fern ✓"}',
      },
      '123456789012',
      route('create-plant'),
    );

    expect(event).toMatchObject({
      routeKey: 'POST /plants',
      body: '{"id":1,"name":"Fern ✓"}',
      headers: { 'content-length': '26' },
    });
  });
});

describe('versionSender', () => {
  const newVersion =
    'arn:aws:lambda:eu-west-1:210987654321:function:PlantStore-prod-DeletePlant:42';

  /** A Lambda client that records each invoke and answers `payload`, as a handler would. */
  const recordingLambda = (payload: unknown, functionError?: string) => {
    const invoked: { functionName: string; event: APIGatewayProxyEventV2 }[] = [];
    const lambda = {
      send: async (command: InvokeCommand) => {
        invoked.push({
          functionName: String(command.input.FunctionName),
          event: JSON.parse(String(command.input.Payload)),
        });
        return {
          StatusCode: 200,
          FunctionError: functionError,
          Payload: new TextEncoder().encode(JSON.stringify(payload)),
        };
      },
    } as unknown as LambdaClient;
    return { lambda, invoked };
  };
  const deleteRequest: CheckRequest = { method: 'DELETE', path: '/plants/7', headers: {} };
  const sender = (lambda: LambdaClient) =>
    versionSender(lambda, newVersion, route('delete-plant'), () => new AbortController().signal);

  it("sends each request to the version, as an event of its operation's route, and reads the answer", async () => {
    const { lambda, invoked } = recordingLambda({
      statusCode: 204,
      headers: { 'cache-control': 'no-store' },
    });

    const answer = await sender(lambda)(deleteRequest);

    expect(answer).toEqual({ status: 204, headers: { 'cache-control': 'no-store' }, body: '' });
    expect(invoked).toMatchObject([
      {
        functionName: newVersion,
        event: {
          routeKey: 'DELETE /plants/{id}',
          pathParameters: { id: '7' },
          requestContext: { accountId: '210987654321' },
        },
      },
    ]);
  });

  it.each([
    [
      'a crash',
      { errorType: 'Error', errorMessage: 'boom' },
      'Unhandled',
      /failed \(Unhandled\): Error: boom/,
    ],
    ['no JSON', 'not json', undefined, /returned no HTTP status/],
    ['no status', { body: '{}' }, undefined, /returned no HTTP status/],
  ])('fails the version on %s', async (_case, payload, functionError, message) => {
    const { lambda } = recordingLambda(payload, functionError);

    const sent = sender(lambda)(deleteRequest);

    await expect(sent).rejects.toThrow(VersionFailedError);
    await expect(sent).rejects.toThrow(message);
  });
});
