import { UnauthorizedError } from './auth-errors.ts';

// The built-in itself, not its ESM facade (docs/decisions/0003-built-ins-without-esm-facades.md).
const { isUtf8 } = process.getBuiltinModule('node:buffer');

/** A compact JWS (RFC 7515 section 7.1), read but not yet verified. */
export type CompactJws = {
  /** The JOSE protected header. */
  readonly header: Readonly<Record<string, unknown>>;
  /** What the signature signs: the first two segments as sent. */
  readonly signingInput: Buffer;
  readonly payload: Buffer;
  readonly signature: Buffer;
};

/**
 * The three segments of a compact JWS, each in its one spelling, and the header parsed. RFC 7515
 * section 2 and RFC 4648 section 3.5: base64url with no padding and no character outside the
 * alphabet, whose last character leaves its unused bits zero. Decoders are lenient (Node's skips
 * what is not base64url, `atob` reads `=` padding, and both ignore the unused bits), so without
 * this check one signed token has many spellings. A segment is in its one spelling exactly when
 * encoding its bytes again gives it back.
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

/** A header or a claims set: UTF-8 JSON text whose value is an object (RFC 7515 4, RFC 7519 7.2). */
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

/** Anything about a token that is not well-formed: the client learns no more than that. */
export const malformedToken = (cause?: unknown) =>
  new UnauthorizedError('invalid', 'Token is malformed or invalid', cause);
