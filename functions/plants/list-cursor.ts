import type { PlantId } from './plant-id.ts';

// The built-in itself, not its ESM facade (docs/decisions/0003-built-ins-without-esm-facades.md).
const { createHmac, hkdfSync, timingSafeEqual } = process.getBuiltinModule('node:crypto');

/**
 * MACed for integrity, not secrecy: a changed or foreign cursor is a clear error before any call
 * (docs/decisions/0080-list-pages-and-cursors.md). 29 bytes as unpadded base64url:
 *   version (1) | id int64 BE (8) | limit uint32 BE (4) | HMAC-SHA256/128 of the 13 before (16)
 */
export type ListCursor = { readonly after: PlantId; readonly limit: number };

export type ListCursors = {
  encode(cursor: ListCursor): string;
  decode(text: string, limit: number): ListCursor;
};

const version = 1;
const bodyBytes = 13;
const macBytes = 16;
const cursorBytes = bodyBytes + macBytes;
const cursorText = /^[A-Za-z0-9_-]{39}$/;

/** The key is derived on first use, so a create-only cold start skips it. */
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

/** A programming error: the handler has checked the limit. */
function checkLimit(limit: number) {
  if (!Number.isInteger(limit) || limit < 1 || limit > 0xffffffff) {
    throw new RangeError(`limit must be a positive integer, not ${limit}`);
  }
}

export class InvalidCursorError extends Error {
  readonly field = 'cursor';

  constructor(message: string) {
    super(message);
    this.name = 'InvalidCursorError';
  }
}
