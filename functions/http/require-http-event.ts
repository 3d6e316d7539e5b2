import { HttpError } from './http-error.ts';
import type { HttpMiddleware } from './request-context.ts';

const textMaps = ['headers', 'queryStringParameters', 'pathParameters'] as const;

/** Another invoker's misshapen event is a 400 in the contract's shape, not a 500 in a later step. */
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
