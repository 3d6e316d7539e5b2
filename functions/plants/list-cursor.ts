import type { PlantId } from './plant-id.ts';

// The built-in itself, not its ESM facade (docs/decisions/0003-built-ins-without-esm-facades.md).
const { createHmac, hkdfSync, timingSafeEqual } = process.getBuiltinModule('node:crypto');

/**
 * Where a list walk goes on, as the caller carries it between pages: the id after which the next
 * page starts and the page size it was issued for, authenticated with HMAC-SHA256 under a key
 * derived from the table's name (docs/decisions/0080-list-pages-and-cursors.md).
 *
 * The MAC is there for integrity and foreignness, not secrecy: a caller may list every id
 * anyway, so a cursor that starts after any id it likes reveals nothing, and the table's name
 * suffices as the key's source. What the MAC does is make a cursor that was changed, cut short,
 * or issued by another table (another stage, another deployment) a clear error before any
 * DynamoDB call, instead of a page from somewhere else or a ValidationException.
 *
 * Layout, 29 bytes, written as 39 characters of unpadded base64url:
 *   version (1) | id as int64 big-endian (8) | limit as uint32 big-endian (4) | MAC (16)
 * The MAC, HMAC-SHA256 truncated to 128 bits, covers the 13 bytes before it.
 */
export type ListCursor = { readonly after: PlantId; readonly limit: number };

export type ListCursors = {
  encode(cursor: ListCursor): string;
  /** The cursor `text` stands for, when issued for `limit` by this table; else InvalidCursorError. */
  decode(text: string, limit: number): ListCursor;
};

const version = 1;
const bodyBytes = 13;
const macBytes = 16;
const cursorBytes = bodyBytes + macBytes;
const cursorText = /^[A-Za-z0-9_-]{39}$/;

/** The cursors of one table. The key is derived on first use, so a create-only cold start skips it. */
export function listCursors(tableName: string): ListCursors {
  let key: Buffer | undefined;
  const mac = (body: Buffer) => {
    key ??= Buffer.from(
      hkdfSync('sha256', tableName, '', 'plant-store list cursor v1', 32) as ArrayBuffer,
    );
    return createHmac('sha256', key).update(body).digest().subarray(0, macBytes);
  };

  return {
    encode({ after, limit }) {
      checkLimit(limit);
      const body = Buffer.alloc(bodyBytes);
      body.writeUInt8(version, 0);
      body.writeBigInt64BE(BigInt(after), 1);
      body.writeUInt32BE(limit, 9);
      return Buffer.concat([body, mac(body)]).toString('base64url');
    },

    decode(text, limit) {
      checkLimit(limit);
      const bytes = cursorText.test(text) ? Buffer.from(text, 'base64url') : undefined;
      // The length and the round trip leave one spelling per cursor: no padding, no stray bits.
      if (bytes?.length !== cursorBytes || bytes.toString('base64url') !== text) {
        throw new InvalidCursorError('cursor is malformed: pass the next link as it was given');
      }
      const body = bytes.subarray(0, bodyBytes);
      if (body.readUInt8(0) !== version || !timingSafeEqual(mac(body), bytes.subarray(bodyBytes))) {
        throw new InvalidCursorError(
          'cursor was not issued by this list or was changed: pass the next link as it was given, or list from the start without one',
        );
      }
      const issuedFor = body.readUInt32BE(9);
      if (issuedFor !== limit) {
        throw new InvalidCursorError(
          `cursor belongs to pages of limit=${issuedFor}: pass it with that limit, or list from the start without one`,
        );
      }
      return { after: body.readBigInt64BE(1).toString() as PlantId, limit };
    },
  };
}

/** A programming error, not a caller's: the handler has checked the limit before. */
function checkLimit(limit: number) {
  if (!Number.isInteger(limit) || limit < 1 || limit > 0xffffffff) {
    throw new RangeError(`limit must be a positive integer, not ${limit}`);
  }
}

/** A cursor that this table did not issue for this page size, or that was changed on the way. */
export class InvalidCursorError extends Error {
  readonly field = 'cursor';

  constructor(message: string) {
    super(message);
    this.name = 'InvalidCursorError';
  }
}
