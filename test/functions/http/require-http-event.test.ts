import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeEvent } from '../../support/fake-event.ts';
import { bodyOf, type PlantApiHarness, startPlantApi } from '../../support/plant-api-harness.ts';

let api: PlantApiHarness;
let token: string;

beforeAll(async () => {
  api = await startPlantApi();
  token = await api.issuer.mint({ claims: { scope: 'plants/read plants/write' } });
});
afterAll(() => api.close());

/** A valid create event with a token of every scope, one member replaced by what API Gateway never sends. */
function misshapen(member: string, value: unknown): APIGatewayProxyEventV2 {
  const event = fakeEvent({ token, body: '{"id":1,"name":"Fern"}' }) as unknown as Record<
    string,
    unknown
  >;
  const headers = event.headers as Record<string, unknown>;
  if (member.startsWith('headers.')) headers[member.slice('headers.'.length)] = value;
  else event[member] = value;
  return event as unknown as APIGatewayProxyEventV2;
}

describe('requireHttpEvent', () => {
  it.each([
    ['a body that is a number', misshapen('body', 1)],
    ['a body that is an object', misshapen('body', { id: 1, name: 'Fern' })],
    [
      'an Authorization header that is an array',
      misshapen('headers.authorization', [`Bearer ${token}`]),
    ],
    [
      'a Content-Type header that is an array',
      misshapen('headers.content-type', ['application/json']),
    ],
    ['a header that is a number', misshapen('headers.x-count', 3)],
    ['headers that are a string', misshapen('headers', 'authorization: Bearer x')],
    ['headers that are an array', misshapen('headers', [])],
    ['isBase64Encoded that is a string', misshapen('isBase64Encoded', 'false')],
    [
      'a query string parameter that is an array',
      misshapen('queryStringParameters', { limit: ['5'] }),
    ],
    ['a path parameter that is a number', misshapen('pathParameters', { id: 7 })],
    ['a rawPath that is not a string', misshapen('rawPath', null)],
    ['no object at all', null as unknown as APIGatewayProxyEventV2],
    ['a string', 'POST /plants' as unknown as APIGatewayProxyEventV2],
  ])(
    'answers an event with %s with 400 in the contract shape, never reaching the store',
    async (_name, event) => {
      const calls = api.storeCalls();

      const answers = await Promise.all(Object.values(api.handlers).map((invoke) => invoke(event)));

      for (const answer of answers) {
        expect(answer.statusCode).toBe(400);
        expect(bodyOf(answer)).toStrictEqual({
          error: 400,
          message: expect.stringMatching(/^The request is not an HTTP API payload 2\.0 event: /),
        });
      }
      expect(api.storeCalls()).toBe(calls);
    },
  );

  it('lets a real payload 2.0 event through, headers and body as API Gateway sends them', async () => {
    const answer = await api.invoke(
      fakeEvent({ token, body: `{"id":${api.freshId()},"name":"Fern"}` }),
    );

    expect(answer.statusCode).toBe(200);
  });
});
