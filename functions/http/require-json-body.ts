import { HttpError } from './http-error.ts';
import type { HttpMiddleware } from './request-context.ts';

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const base64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Room for unknown fields; a body of brackets would exhaust a reviver parse's stack. */
export const maxNestingDepth = 64;

export type JsonBodyFields = { rawBody: string };

/** Before the JSON parser: hands it plain text, and keeps that text for the exact id. */

export function requireJsonBody(maxBytes: number): HttpMiddleware<JsonBodyFields> {
  return {
    name: 'requireJsonBody',
    before: ({ event, context }) => {
      const mediaType = event.headers?.['content-type']?.split(';')[0]?.trim().toLowerCase();
      if (mediaType !== 'application/json') {
        throw new HttpError(415, 'Content-Type must be application/json');
      }
      const body = event.body ?? '';
      // The decoded size: base64 padding carries no bytes, so a body at the limit passes either way.
      const size = Buffer.byteLength(body, event.isBase64Encoded ? 'base64' : 'utf8');
      if (size > maxBytes) {
        throw new HttpError(413, `Request body must be at most ${maxBytes} bytes`);
      }
      const text = event.isBase64Encoded ? decodeBase64Utf8(body) : body;
      if (text.trim() === '') throw new HttpError(400, 'Request body is required');
      if (nestsDeeperThan(text, maxNestingDepth)) {
        throw new HttpError(400, `Request body must not nest more than ${maxNestingDepth} levels`);
      }
      event.body = text;
      event.isBase64Encoded = false;
      context.rawBody = text;
    },
  };
}

function decodeBase64Utf8(body: string): string {
  if (body.length % 4 !== 0 || !base64.test(body)) {
    throw new HttpError(400, 'Request body is not valid base64');
  }
  try {
    return utf8.decode(Buffer.from(body, 'base64'));
  } catch (error) {
    throw new HttpError(400, 'Request body is not valid UTF-8', { cause: error });
  }
}

/** One pass over the text, skipping strings; malformed JSON is left for the parser to refuse. */
function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const char = text[index];
    if (inString) {
      if (char === '\\') index++;
      else if (char === '"') inString = false;
    } else if (char === '"') {
      inString = true;
    } else if (char === '{' || char === '[') {
      depth++;
      if (depth > limit) return true;
    } else if (char === '}' || char === ']') {
      depth--;
    }
  }
  return false;
}
