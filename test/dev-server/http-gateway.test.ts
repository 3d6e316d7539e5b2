import { describe, expect, it } from 'vitest';
import {
  fromResultV2,
  gatewayError,
  type RawRequest,
  toEventV2,
} from '../../dev-server/http-gateway.ts';

const request: RawRequest = {
  method: 'POST',
  url: '/plants',
  httpVersion: '1.1',
  rawHeaders: ['Host', 'api.example.com:3000', 'Content-Type', 'application/json'],
};
const context = {
  requestId: 'JKJaXmPLvHcESHA=',
  routeKey: 'POST /plants',
  pathParameters: {},
  receivedAt: new Date('2020-03-02T19:03:58.390Z'),
  sourceIp: '127.0.0.1',
};

function event(overrides: Partial<RawRequest> = {}, body = Buffer.from('{"id":1}')) {
  return toEventV2({ ...structuredClone(request), ...overrides }, body, context);
}

describe('toEventV2', () => {
  it('builds a payload 2.0 event with the request context API Gateway sends', () => {
    const headers = [...request.rawHeaders, 'User-Agent', 'curl/8.5.0'];

    const result = event({ rawHeaders: headers });

    expect(result).toMatchObject({
      version: '2.0',
      routeKey: 'POST /plants',
      rawPath: '/plants',
      rawQueryString: '',
      body: '{"id":1}',
      isBase64Encoded: false,
      requestContext: {
        domainName: 'api.example.com',
        domainPrefix: 'api',
        http: {
          method: 'POST',
          path: '/plants',
          protocol: 'HTTP/1.1',
          sourceIp: '127.0.0.1',
          userAgent: 'curl/8.5.0',
        },
        requestId: 'JKJaXmPLvHcESHA=',
        routeKey: 'POST /plants',
        stage: '$default',
        time: '02/Mar/2020:19:03:58 +0000',
        timeEpoch: 1583175838390,
      },
    });
  });

  it('lower-cases header names and joins repeated headers with commas', () => {
    const result = event({
      rawHeaders: ['X-Trace', 'a', 'Content-Type', 'application/json', 'x-trace', 'b'],
    });

    expect(result.headers).toEqual({ 'x-trace': 'a,b', 'content-type': 'application/json' });
  });

  it('takes a header named like an Object property (constructor, __proto__) as any other', () => {
    const result = event({ rawHeaders: ['Constructor', 'x', 'toString', 'y', '__proto__', 'z'] });

    expect(result.headers).toStrictEqual({ constructor: 'x', tostring: 'y', ['__proto__']: 'z' });
  });

  it('splits the path from the raw query string, which it keeps as sent', () => {
    const result = event({ url: '/plants?tag=in%20door&a=1&a=2' });

    expect(result.rawPath).toBe('/plants');
    expect(result.rawQueryString).toBe('tag=in%20door&a=1&a=2');
  });

  it.each([
    ['decoded', 'tag=in%20door&name=Fern+Ivy', { tag: 'in door', name: 'Fern Ivy' }],
    [
      'a repeated name joined with commas, in order',
      'limit=1&b=x&limit=2',
      { limit: '1,2', b: 'x' },
    ],
    ['a name without a value as empty', 'limit&cursor=', { limit: '', cursor: '' }],
    ['a % that starts no escape as sent', 'cursor=%zz', { cursor: '%zz' }],
    ['an encoded comma like a repeat', 'limit=1%2C2', { limit: '1,2' }],
    [
      'a name like an Object property as any other',
      '__proto__=1&constructor=2',
      { ['__proto__']: '1', constructor: '2' },
    ],
  ])('gives queryStringParameters %s', (_name, query, parameters) => {
    const result = event({ url: `/plants?${query}` });

    expect(result.queryStringParameters).toStrictEqual(parameters);
    expect(Object.keys(result.queryStringParameters ?? {})).toStrictEqual(Object.keys(parameters));
  });

  it.each(['/plants', '/plants?', '/plants?&'])(
    'leaves out queryStringParameters for %s, which has no parameter',
    (url) => {
      const result = event({ url });

      expect(result).not.toHaveProperty('queryStringParameters');
    },
  );

  it('carries the route key and path parameters it is given, and none when the route has none', () => {
    const withId = toEventV2({ ...request, method: 'DELETE', url: '/plants/42' }, Buffer.alloc(0), {
      ...context,
      routeKey: 'DELETE /plants/{id}',
      pathParameters: { id: '42' },
    });

    expect(withId).toMatchObject({
      routeKey: 'DELETE /plants/{id}',
      rawPath: '/plants/42',
      pathParameters: { id: '42' },
      requestContext: { routeKey: 'DELETE /plants/{id}', http: { method: 'DELETE' } },
    });
    expect(event()).not.toHaveProperty('pathParameters');
  });

  it.each([
    ['JSON', 'application/json; charset=utf-8', Buffer.from('{"name":"Fern"}'), false],
    ['a +json type', 'application/merge-patch+json', Buffer.from('{}'), false],
    ['plain text', 'text/plain', Buffer.from('Fern'), false],
    ['binary', 'application/octet-stream', Buffer.from([0, 1, 2, 255]), true],
    ['JSON that is not valid UTF-8', 'application/json', Buffer.from([0x7b, 0xff, 0x7d]), true],
    ['no content type', undefined, Buffer.from('{}'), true],
  ])('sends %s as %s', (_name, contentType, body, base64) => {
    const rawHeaders = contentType === undefined ? [] : ['Content-Type', contentType];

    const result = event({ rawHeaders }, body);

    expect(result.isBase64Encoded).toBe(base64);
    expect(result.body).toBe(body.toString(base64 ? 'base64' : 'utf8'));
  });

  it('leaves out the body when there is none', () => {
    const result = event({}, Buffer.alloc(0));

    expect(result).not.toHaveProperty('body');
    expect(result.isBase64Encoded).toBe(false);
  });
});

describe('fromResultV2', () => {
  it('maps status, headers and body', () => {
    const response = fromResultV2({
      statusCode: 201,
      headers: { 'Content-Type': 'application/json', 'X-Count': 2 },
      body: '{"name":"Fern"}',
    });

    expect(response.statusCode).toBe(201);
    expect(response.headers).toEqual({ 'content-type': 'application/json', 'x-count': '2' });
    expect(response.body.toString()).toBe('{"name":"Fern"}');
  });

  it('decodes a base64 body', () => {
    const response = fromResultV2({
      statusCode: 200,
      body: Buffer.from([0, 255]).toString('base64'),
      isBase64Encoded: true,
    });

    expect([...response.body]).toEqual([0, 255]);
  });

  it.each([
    ['an invalid status code', { statusCode: 'ok' }],
    ['no status code', { name: 'Fern' }],
    ['no result (the function threw)', undefined],
  ])('answers the gateway 500 for %s', (_name, result) => {
    const response = fromResultV2(result);

    expect(response).toEqual(gatewayError(500));
    expect(JSON.parse(response.body.toString())).toEqual({ message: 'Internal Server Error' });
  });
});
