import { createHmac, hkdfSync } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidCursorError, listCursors } from '../../../functions/plants/list-cursor.ts';
import { type PlantId, parsePlantId } from '../../../functions/plants/plant-id.ts';

const tableName = 'PlantStore-test-PlantsTable-1A2B3C';
const cursors = listCursors(tableName);

/** The MAC as the layout documents it, computed here independently of the code under test. */
const macOf = (table: string, body: Buffer) => {
  const key = Buffer.from(hkdfSync('sha256', table, '', 'plant-store list cursor v1', 32));
  return createHmac('sha256', key).update(body).digest().subarray(0, 16);
};
const id = (text: string): PlantId => parsePlantId(text);
const issued = cursors.encode({ after: id('9007199254740993'), limit: 20 });

const rejection = (text: string, limit = 20, from = cursors) => {
  try {
    from.decode(text, limit);
  } catch (error) {
    if (error instanceof InvalidCursorError) return error;
    throw error;
  }
  throw new Error(`accepted ${JSON.stringify(text)}`);
};

/** `text` with the character at `index` replaced by another of the base64url alphabet. */
const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const withCharacter = (text: string, index: number, shift: number) => {
  const current = alphabet.indexOf(text.charAt(index));
  const replacement = alphabet.charAt((current + shift) % alphabet.length);
  return text.slice(0, index) + replacement + text.slice(index + 1);
};

describe('listCursors', () => {
  it.each([
    ['0', 1],
    ['-1', 20],
    ['9007199254740993', 100],
    ['9223372036854775807', 500],
    ['-9223372036854775808', 2 ** 31 - 1],
  ])('gives back the id %s and limit %i it encoded', (after, limit) => {
    const text = cursors.encode({ after: id(after), limit });

    expect(cursors.decode(text, limit)).toStrictEqual({ after, limit });
  });

  it('writes 39 characters of unpadded base64url that do not show the id', () => {
    expect(issued).toMatch(/^[A-Za-z0-9_-]{39}$/);
    expect(issued).not.toContain('9007199254740993');
  });

  it('round-trips every int64 and every int32 limit', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
        fc.integer({ min: 1, max: 2 ** 31 - 1 }),
        (value, limit) => {
          const after = id(value.toString());

          expect(cursors.decode(cursors.encode({ after, limit }), limit)).toStrictEqual({
            after,
            limit,
          });
        },
      ),
    );
  });

  it.each([
    ['an empty string', ''],
    ['garbage', 'not-a-cursor'],
    ['a number', '12345'],
    ['JSON', '{"id":1}'],
    ['standard base64 characters', `${issued.slice(0, 37)}+/`],
    ['padding', `${issued}=`],
    ['a space', ` ${issued}`],
    ['one character more', `${issued}A`],
    ['a cursor twice', issued + issued],
    ['percent-encoding', encodeURIComponent(`${issued.slice(0, 38)}/`)],
  ])('refuses %s as malformed, naming cursor', (_case, text) => {
    const error = rejection(text);

    expect(error.field).toBe('cursor');
    expect(error.message).toMatch(/^cursor is malformed/);
  });

  it('refuses every truncation of a cursor', () => {
    for (let length = 0; length < issued.length; length++) {
      expect(rejection(issued.slice(0, length)).message).toMatch(/^cursor /);
    }
  });

  it('refuses a cursor whose unused trailing bits are set: each cursor has one spelling', () => {
    // The last character carries 4 data bits and 2 that must be zero.
    const last = alphabet.indexOf(issued.charAt(38));
    const text = issued.slice(0, 38) + alphabet.charAt(last | 1);

    expect(last & 3).toBe(0);
    expect(rejection(text).message).toMatch(/^cursor is malformed/);
  });

  it('refuses a cursor with any one character changed', () => {
    for (let index = 0; index < issued.length; index++) {
      for (const shift of [1, 4, 16, 32]) {
        const tampered = withCharacter(issued, index, shift);
        expect(tampered).not.toBe(issued);
        expect(rejection(tampered).field).toBe('cursor');
      }
    }
  });

  it('refuses a cursor with any one bit of its bytes flipped', () => {
    const bytes = Buffer.from(issued, 'base64url');
    for (let bit = 0; bit < bytes.length * 8; bit++) {
      const flipped = Buffer.from(bytes);
      flipped[bit >> 3] = (flipped[bit >> 3] ?? 0) ^ (1 << (bit & 7));

      const error = rejection(flipped.toString('base64url'));

      expect(error.message).toMatch(/^cursor was not issued by this list or was changed/);
    }
  });

  it('refuses a cursor issued by another table, however similar its name', () => {
    for (const tableName of [
      'PlantStore-prod-PlantsTable-9Z8Y7X',
      'PlantStore-test-PlantsTable-1A2B3D',
    ]) {
      const foreign = listCursors(tableName).encode({ after: id('9007199254740993'), limit: 20 });

      const error = rejection(foreign);

      expect(error.message).toMatch(/^cursor was not issued by this list or was changed/);
      expect(error.message).not.toContain('9007199254740993');
    }
  });

  it('refuses a cursor issued for another limit, naming the limit it belongs to', () => {
    const error = rejection(issued, 21);

    expect(error.message).toBe(
      'cursor belongs to pages of limit=20: pass it with that limit, or list from the start without one',
    );
  });

  it('writes the documented layout: version, id, limit, and HMAC-SHA256 under a key from the table name', () => {
    const bytes = Buffer.from(cursors.encode({ after: id('-2'), limit: 300 }), 'base64url');

    expect(bytes.subarray(0, 13)).toStrictEqual(
      Buffer.from([1, ...Array(7).fill(0xff), 0xfe, 0, 0, 1, 44]),
    );
    expect(bytes.subarray(13)).toStrictEqual(macOf(tableName, bytes.subarray(0, 13)));
  });

  it('refuses a well-signed cursor of another layout version', () => {
    const body = Buffer.from(issued, 'base64url').subarray(0, 13);
    body[0] = 2;
    const text = Buffer.concat([body, macOf(tableName, body)]).toString('base64url');

    expect(rejection(text).message).toMatch(/^cursor was not issued by this list/);
  });

  it('answers any text with a cursor or an InvalidCursorError, never another error', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string(), fc.base64String(), fc.stringMatching(/^[\w-]{30,45}$/)),
        (text) => {
          expect(rejection(text)).toBeInstanceOf(InvalidCursorError);
        },
      ),
    );
  });

  it.each([[0], [-1], [1.5], [Number.NaN], [2 ** 32]])(
    'treats a limit of %s as the caller’s bug, not a bad cursor',
    (limit) => {
      expect(() => cursors.decode(issued, limit)).toThrow(RangeError);
      expect(() => cursors.encode({ after: id('1'), limit })).toThrow(RangeError);
    },
  );
});
