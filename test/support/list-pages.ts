import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { expect } from 'vitest';
import { fakeListEvent } from './fake-event.ts';

/** A list item with its id as the exact text of its JSON number. */
export type ListedPlant = { id: string; name: string; tag?: string };

/** JSON.parse as Node 24 runs it, with each primitive's source text; TypeScript's lib predates it. */
const parseWithSource = JSON.parse as (
  text: string,
  reviver: (key: string, value: unknown, context?: { source?: string }) => unknown,
) => unknown;

/**
 * The items of a GET /plants answer, each id read from the body's own text (a JSON number past
 * 2^53 would round as a JavaScript number), after checking that it is written as a number.
 */
export function listedPlants(result: APIGatewayProxyStructuredResultV2): ListedPlant[] {
  const body = parseWithSource(result.body ?? '', (key, value, context) => {
    if (key !== 'id') return value;
    expect(typeof value, 'an id is a JSON number').toBe('number');
    return context?.source;
  });
  expect(Array.isArray(body), 'the body is an array').toBe(true);
  return body as ListedPlant[];
}

/** `Link: </plants?limit=N&cursor=C>; rel="next"`, as RFC 8288 writes one link. */
const nextLink = /^<\/plants\?limit=([1-9]\d*)&cursor=([A-Za-z0-9_-]+)>; rel="next"$/;

/**
 * The query of the next page a GET /plants answer links to, or undefined when it links to none
 * (the last page). Fails on a Link of any other form.
 */
export function nextQuery(result: APIGatewayProxyStructuredResultV2): string | undefined {
  const link = result.headers?.link;
  if (link === undefined) return undefined;
  expect(link).toMatch(nextLink);
  return String(link).slice(String(link).indexOf('?') + 1, String(link).indexOf('>'));
}

export type Walk = {
  /** Every answer, in order. */
  readonly pages: APIGatewayProxyStructuredResultV2[];
  /** Every item of every page, in order. */
  readonly plants: ListedPlant[];
};

/**
 * Lists from `query` to the last page by following each answer's next link, as a client does,
 * running `between` after each page that links to another. Fails on an answer other than 200,
 * and past `maxPages`.
 */
export async function walkPages(
  invoke: (event: APIGatewayProxyEventV2) => Promise<APIGatewayProxyStructuredResultV2>,
  options: {
    readonly query?: string;
    readonly token: string;
    readonly between?: (page: number) => Promise<void>;
    readonly maxPages?: number;
  },
): Promise<Walk> {
  const pages: APIGatewayProxyStructuredResultV2[] = [];
  const plants: ListedPlant[] = [];
  let query: string | undefined = options.query ?? '';
  while (query !== undefined) {
    const result = await invoke(fakeListEvent(query, { token: options.token }));
    expect(result.statusCode, result.body).toBe(200);
    pages.push(result);
    plants.push(...listedPlants(result));
    query = nextQuery(result);
    expect(pages.length, 'a walk ends').toBeLessThanOrEqual(options.maxPages ?? 1000);
    if (query !== undefined) await options.between?.(pages.length);
  }
  return { pages, plants };
}
