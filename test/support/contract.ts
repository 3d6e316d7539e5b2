import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { expect } from 'vitest';

/** The statuses the contract lets a client's own request cause (the README's API table). */
export const clientStatuses = [400, 401, 403, 409, 413, 415] as const;

/** Headers every answer carries, whatever its status, a 204 included. */
export const noContentHeaders = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
} as const;

/** Headers every answer with a body carries, whatever its status. */
export const hygieneHeaders = { 'content-type': 'application/json', ...noContentHeaders } as const;

/** What every operation answers a request with no bearer token: headers and parsed body. */
export const missingTokenAnswer = {
  headers: { ...hygieneHeaders, 'www-authenticate': 'Bearer realm="plant-store"' },
  body: { error: 401, message: 'Missing bearer token in the Authorization header' },
} as const;

export type ContractAnswer =
  | { readonly status: 200; readonly plant: { name: string; tag?: string } }
  | { readonly status: number; readonly error: { error: number; message: string } };

/**
 * Asserts that a result is one the contract allows for a request the store could take: a 200
 * Plant (exactly `name` and maybe `tag`) or a 4xx `{error, message}`, with the hygiene headers,
 * and a `WWW-Authenticate: Bearer ...` challenge on every 401 and 403. Returns the parsed answer.
 */
export function expectContractAnswer(result: APIGatewayProxyStructuredResultV2): ContractAnswer {
  const status = result.statusCode ?? 0;
  expect(result.headers).toMatchObject(hygieneHeaders);
  const body: unknown = JSON.parse(result.body ?? '');
  if (status === 200) {
    const plant = body as { name: unknown; tag?: unknown };
    expect(Object.keys(plant).sort()).toStrictEqual('tag' in plant ? ['name', 'tag'] : ['name']);
    expect(plant.name).toBeTypeOf('string');
    if ('tag' in plant) expect(plant.tag).toBeTypeOf('string');
    return { status: 200, plant: body as { name: string; tag?: string } };
  }
  expect(clientStatuses).toContain(status);
  expectErrorShape(body, status);
  if (status === 401 || status === 403) {
    expect(result.headers?.['www-authenticate']).toMatch(/^Bearer realm="plant-store"/);
  }
  return { status, error: body as { error: number; message: string } };
}

/** `{error: <status>, message: <non-empty text>}` and nothing else. */
export function expectErrorShape(body: unknown, status: number): void {
  expect(body).toStrictEqual({ error: status, message: expect.any(String) });
  expect((body as { message: string }).message.length).toBeGreaterThan(0);
}
