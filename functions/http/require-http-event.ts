import { HttpError } from './http-error.ts';
import type { HttpMiddleware } from './request-context.ts';

/** The members of a payload 2.0 event that map names to text, and the steps that read them. */
const textMaps = ['headers', 'queryStringParameters', 'pathParameters'] as const;

/**
 * The event's shape, before any step reads it: the members the steps read have the types API
 * Gateway's payload 2.0 gives them (a map of text or absent, text or absent, a boolean or absent).
 * API Gateway never sends anything else, so what does came from another invoker (a test, a
 * console, a misconfigured integration); it is answered as a bad request, in the contract's shape,
 * instead of failing inside a later step as a 500.
 */
export function requireHttpEvent(): HttpMiddleware {
  return {
    name: 'requireHttpEvent',
    before: ({ event }) => {
      const wrong = misshapenMember(event);
      if (wrong !== undefined) {
        throw new HttpError(400, `The request is not an HTTP API payload 2.0 event: ${wrong}`);
      }
    },
  };
}

/** What is wrong with the event's shape, in a few words, or undefined when nothing is. */
function misshapenMember(event: unknown): string | undefined {
  if (typeof event !== 'object' || event === null) return 'it is not an object';
  const members = event as Record<string, unknown>;
  for (const name of textMaps) {
    const map = members[name];
    if (map === undefined) continue;
    if (typeof map !== 'object' || map === null || Array.isArray(map)) {
      return `${name} is not a map of strings`;
    }
    if (Object.values(map).some((value) => typeof value !== 'string')) {
      return `${name} has a value that is not a string`;
    }
  }
  for (const name of ['body', 'rawPath', 'rawQueryString']) {
    const value = members[name];
    if (value !== undefined && typeof value !== 'string') return `${name} is not a string`;
  }
  const { isBase64Encoded } = members;
  if (isBase64Encoded !== undefined && typeof isBase64Encoded !== 'boolean') {
    return 'isBase64Encoded is not a boolean';
  }
  return undefined;
}
