import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  asPlantId,
  InvalidPlantIdError,
  parsePlantId,
} from '../../../functions/plants/plant-id.ts';

const int64 = { min: -(2n ** 63n), max: 2n ** 63n - 1n };

const rejection = (text: string) => {
  try {
    parsePlantId(text);
  } catch (error) {
    if (error instanceof InvalidPlantIdError) return error;
    throw error;
  }
  throw new Error(`accepted ${JSON.stringify(text)}`);
};

describe('parsePlantId', () => {
  it.each([
    ['0'],
    ['1'],
    ['-1'],
    ['42'],
    ['9007199254740993'],
    ['9223372036854775807'],
    ['9223372036854775806'],
    ['-9223372036854775808'],
    ['1000000000000000000'],
  ])('accepts the canonical id %s as it is', (text) => {
    expect(parsePlantId(text)).toBe(text);
  });

  it.each([
    ['a leading zero', '01'],
    ['zeros only', '00'],
    ['a negative zero', '-0'],
    ['a negative leading zero', '-01'],
    ['a plus sign', '+1'],
    ['a fraction', '1.0'],
    ['a bare fraction', '.5'],
    ['a trailing dot', '1.'],
    ['an exponent', '1e2'],
    ['an upper-case exponent', '1E2'],
    ['a leading space', ' 1'],
    ['a trailing space', '1 '],
    ['a trailing newline', '1\n'],
    ['an empty string', ''],
    ['a lone minus', '-'],
    ['a double minus', '--1'],
    ['hexadecimal', '0x10'],
    ['a digit separator', '1_000'],
    ['a thousands comma', '1,000'],
    ['letters', 'abc'],
    ['a number and letters', '12a'],
    ['Arabic-Indic digits', '١٢'],
    ['full-width digits', '１２'],
    ['Infinity', 'Infinity'],
    ['NaN', 'NaN'],
    ['an encoded slash', '1%2F2'],
  ])('refuses %s (%j), naming id and the canonical form', (_case, text) => {
    const error = rejection(text);

    expect(error.field).toBe('id');
    expect(error.message).toMatch(/^id must be an integer in canonical decimal form/);
  });

  it.each([
    ['one above the maximum', '9223372036854775808'],
    ['one below the minimum', '-9223372036854775809'],
    ['2^64', '18446744073709551616'],
    ['twenty digits', '10000000000000000000'],
    ['a hundred digits', `9${'0'.repeat(99)}`],
  ])('refuses %s as out of range, naming id and both bounds', (_case, text) => {
    const error = rejection(text);

    expect(error.field).toBe('id');
    expect(error.message).toBe('id must be between -9223372036854775808 and 9223372036854775807');
  });

  it('accepts every int64 written by toString, and nothing else', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: int64.min, max: int64.max }), (value) => {
        expect(parsePlantId(value.toString())).toBe(value.toString());
      }),
    );
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...'-+0123456789.e ') }), (text) => {
        const canonical = /^-?\d+$/.test(text) ? BigInt(text).toString() === text : false;
        const inRange = canonical && BigInt(text) >= int64.min && BigInt(text) <= int64.max;

        expect(asPlantId(text)).toBe(inRange ? text : undefined);
      }),
    );
  });
});
