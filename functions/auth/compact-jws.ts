import { UnauthorizedError } from './auth-errors.ts';

// The built-in itself, not its ESM facade (docs/decisions/0003-built-ins-without-esm-facades.md).
const { isUtf8 } = process.getBuiltinModule('node:buffer');

/** Read, not yet verified (RFC 7515 7.1). */
export type CompactJws = {
  readonly header: Readonly<Record<string, unknown>>;
  readonly signingInput: Buffer;
  readonly payload: Buffer;
  readonly signature: Buffer;
};

/**
 * Each segment in its one base64url spelling (RFC 7515 2, RFC 4648 3.5): decoders are lenient, so
 * otherwise one signed token has many. A segment is canonical when re-encoding gives it back.
 */
export function readCompactJws(token: string): CompactJws {
  const segments = token.split('.');
  if (segments.length !== 3) throw malformedToken();
  const [header = '', payload = '', signature = ''] = segments;
  return {
    header: jsonObject(decodeSegment(header)),
    signingInput: Buffer.from(`${header}.${payload}`),
    payload: decodeSegment(payload),
    signature: decodeSegment(signature),
  };
}

function decodeSegment(segment: string): Buffer {
  const bytes = Buffer.from(segment, 'base64url');
  if (bytes.toString('base64url') !== segment) throw malformedToken();
  return bytes;
}

/** RFC 7515 4, RFC 7519 7.2. */
export function jsonObject(bytes: Buffer): Readonly<Record<string, unknown>> {
  if (!isUtf8(bytes)) throw malformedToken();
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    throw malformedToken(error);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw malformedToken();
  return value as Record<string, unknown>;
}

/** The client learns no more than that. */
export const malformedToken = (cause?: unknown) =>
  new UnauthorizedError('invalid', 'Token is malformed or invalid', cause);
