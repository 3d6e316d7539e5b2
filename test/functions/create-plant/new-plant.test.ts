import { describe, expect, it } from 'vitest';
import { BadRequestError } from '../../../functions/create-plant/errors.ts';
import { exactInteger, parseNewPlant } from '../../../functions/create-plant/new-plant.ts';

const parse = (raw: string) => parseNewPlant(JSON.parse(raw), raw);
const rejection = (raw: string) => {
  try {
    parse(raw);
  } catch (error) {
    if (error instanceof BadRequestError) return error.message;
    throw error;
  }
  throw new Error(`accepted ${raw}`);
};

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

describe('parseNewPlant', () => {
  it('keeps an id above 2^53 exactly, as a canonical decimal string', () => {
    expect(parse('{"id":9223372036854775807,"name":"Max"}')).toStrictEqual({
      id: '9223372036854775807',
      name: 'Max',
    });
    expect(parse('{"id":-0,"name":"Zero"}').id).toBe('0');
    expect(parse('{"id":1e2,"name":"Hundred"}').id).toBe('100');
  });

  it('reads the top-level id, never a nested one', () => {
    expect(parse('{"meta":{"id":99999999999999999999},"id":7,"name":"Top"}').id).toBe('7');
  });

  it('keeps unicode names and tags as sent and drops unknown fields', () => {
    expect(parse('{"id":1,"name":"Monstera 🌿 déliciosa","tag":"熱帯","x":1}')).toStrictEqual({
      id: '1',
      name: 'Monstera 🌿 déliciosa',
      tag: '熱帯',
    });
  });

  it('accepts names and tags exactly at their limits', () => {
    const raw = JSON.stringify({ id: 1, name: 'n'.repeat(200), tag: 't'.repeat(64) });

    expect(parse(raw).name).toHaveLength(200);
  });

  it.each([
    ['an array', '[]', 'Request body must be a JSON object'],
    ['null', 'null', 'Request body must be a JSON object'],
    ['a number', '12', 'Request body must be a JSON object'],
    ['a fractional id', '{"id":1.5,"name":"a"}', 'id must be an integer'],
    ['a string id', '{"id":"1","name":"a"}', 'id must be an integer'],
    [
      'an id past int64',
      '{"id":9223372036854775808,"name":"a"}',
      'id must be between -9223372036854775808 and 9223372036854775807',
    ],
    [
      'an id below int64',
      '{"id":-9223372036854775809,"name":"a"}',
      'id must be between -9223372036854775808 and 9223372036854775807',
    ],
    ['a missing name', '{"id":1}', 'name is required'],
    ['an empty name', '{"id":1,"name":""}', 'name must not be empty'],
    [
      'an over-long name',
      `{"id":1,"name":"${'n'.repeat(201)}"}`,
      'name must be at most 200 characters',
    ],
    [
      'an over-long tag',
      `{"id":1,"name":"a","tag":"${'t'.repeat(65)}"}`,
      'tag must be at most 64 characters',
    ],
    ['an empty tag', '{"id":1,"name":"a","tag":""}', 'tag must not be empty'],
    ['an array tag', '{"id":1,"name":"a","tag":["x"]}', 'tag must be a string'],
    [
      'a newline in the name',
      '{"id":1,"name":"a\\nb"}',
      'name must not contain control characters or lone surrogates',
    ],
    [
      'a NUL in the tag',
      '{"id":1,"name":"a","tag":"\\u0000"}',
      'tag must not contain control characters or lone surrogates',
    ],
    [
      'a lone surrogate',
      '{"id":1,"name":"\\ud800"}',
      'name must not contain control characters or lone surrogates',
    ],
  ])('refuses %s with a message naming the field', (_case, raw, message) => {
    expect(rejection(raw)).toBe(message);
  });
});
