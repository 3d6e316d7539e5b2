import { describe, expect, it } from 'vitest';
import { exactInteger } from '../../../functions/plants/exact-integer.ts';

describe('exactInteger', () => {
  it.each([
    ['0', 0n],
    ['-0', 0n],
    ['42', 42n],
    ['1.0', 1n],
    ['1e2', 100n],
    ['1E+2', 100n],
    ['2500e-2', 25n],
    ['0.0e5', 0n],
    ['9007199254740993', 9007199254740993n],
    ['9223372036854775807.0', 9223372036854775807n],
    ['-9223372036854775808', -9223372036854775808n],
  ])('reads %s as the integer %s', (literal, expected) => {
    expect(exactInteger(literal)).toBe(expected);
  });

  it.each([['1.5'], ['1e-1'], ['12345e-3'], ['abc'], ['']])('finds no integer in %s', (literal) => {
    expect(exactInteger(literal)).toBeUndefined();
  });

  it('clamps a huge exponent so that it stays out of range without huge arithmetic', () => {
    expect(exactInteger('1e400')).toBe(10n ** 20n);
  });
});
