import type { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { operations } from '../../../functions/operations.ts';
import type { CoreRequest } from '../../../functions/pre-traffic-check/core-cases.ts';
import {
  payloadV2Event,
  versionSender,
} from '../../../functions/pre-traffic-check/invoke-version.ts';

const route = (name: string) => {
  const found = operations.find((operation) => operation.name === name);
  if (found === undefined) throw new Error(`no operation ${name}`);
  return found;
};

describe('payloadV2Event', () => {
  it("names the route's key, not the path, and the path's parameters", () => {
    const event = payloadV2Event(
      {
        operation: 'delete-plant',
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
        operation: 'list-plants',
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
        operation: 'list-plants',
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
        operation: 'create-plant',
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
    'arn:aws:lambda:eu-west-1:123456789012:function:PlantStore-prod-CreatePlant:42';
  const deleteAlias =
    'arn:aws:lambda:eu-west-1:210987654321:function:PlantStore-prod-DeletePlant:live';
  const targets = {
    'create-plant': { functionArn: newVersion, route: route('create-plant') },
    'delete-plant': { functionArn: deleteAlias, route: route('delete-plant') },
  };

  /** A Lambda client that records each invoke and answers 204, as a handler would. */
  const recordingLambda = () => {
    const invoked: { functionName: string; event: APIGatewayProxyEventV2 }[] = [];
    const lambda = {
      send: async (command: InvokeCommand) => {
        invoked.push({
          functionName: String(command.input.FunctionName),
          event: JSON.parse(String(command.input.Payload)),
        });
        return { StatusCode: 200, Payload: new TextEncoder().encode('{"statusCode":204}') };
      },
    } as unknown as LambdaClient;
    return { lambda, invoked };
  };

  const createRequest: CoreRequest = {
    operation: 'create-plant',
    method: 'POST',
    path: '/plants',
    headers: {},
    body: '{"id":7,"name":"Fern"}',
  };
  const deleteRequest: CoreRequest = {
    operation: 'delete-plant',
    method: 'DELETE',
    path: '/plants/7',
    headers: {},
  };

  it("sends each request to its operation's function, as an event of that operation's route", async () => {
    const { lambda, invoked } = recordingLambda();
    const send = versionSender(lambda, targets, () => new AbortController().signal);

    await send(createRequest);
    await send(deleteRequest);

    expect(invoked).toMatchObject([
      {
        functionName: newVersion,
        event: { routeKey: 'POST /plants', requestContext: { accountId: '123456789012' } },
      },
      {
        functionName: deleteAlias,
        event: {
          routeKey: 'DELETE /plants/{id}',
          pathParameters: { id: '7' },
          requestContext: { accountId: '210987654321' },
        },
      },
    ]);
  });

  it('refuses a request for an operation it has no function for, and invokes nothing', async () => {
    const { lambda, invoked } = recordingLambda();
    const send = versionSender(
      lambda,
      { 'create-plant': targets['create-plant'] },
      () => new AbortController().signal,
    );

    await expect(send(deleteRequest)).rejects.toThrow(
      "no function to send delete-plant's request to",
    );
    await expect(send({ ...deleteRequest, operation: 'toString' })).rejects.toThrow(
      "no function to send toString's request to",
    );
    expect(invoked).toEqual([]);
  });
});
