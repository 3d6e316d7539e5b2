import { describe, expect, it } from 'vitest';
import { operations } from '../../../functions/operations.ts';
import { payloadV2Event } from '../../../functions/pre-traffic-check/invoke-version.ts';

const route = (name: string) => {
  const found = operations.find((operation) => operation.name === name);
  if (found === undefined) throw new Error(`no operation ${name}`);
  return found;
};

describe('payloadV2Event', () => {
  it("names the route's key, not the path, and the path's parameters", () => {
    const event = payloadV2Event(
      { method: 'DELETE', path: '/plants/-42', headers: { authorization: 'Bearer t' } },
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
      { method: 'GET', path: '/plants?limit=1&limit=2&cursor=a%2Bb%3D', headers: {} },
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
      { method: 'GET', path: '/plants?__proto__=1&constructor=2', headers: {} },
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
      { method: 'POST', path: '/plants', headers: {}, body: '{"id":1,"name":"Fern ✓"}' },
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
