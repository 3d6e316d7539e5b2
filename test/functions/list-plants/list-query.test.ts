import { describe, expect, it } from 'vitest';
import { HttpError } from '../../../functions/http/http-error.ts';
import { pageLimits, parseListQuery } from '../../../functions/list-plants/list-query.ts';
import { operation } from '../../../functions/list-plants/operation.ts';
import { fakeOperationEvent } from '../../support/fake-event.ts';

/** The parameters API Gateway hands over for this raw query string. */
const parse = (query: string) =>
  parseListQuery(fakeOperationEvent(operation, { query }).queryStringParameters);

const refusal = (query: string) => {
  try {
    parse(query);
  } catch (error) {
    if (error instanceof HttpError) return { status: error.statusCode, message: error.message };
    throw error;
  }
  throw new Error(`accepted ${JSON.stringify(query)}`);
};

describe('parseListQuery', () => {
  it('asks for a page of 20 from the start when the query names neither limit nor cursor', () => {
    expect(parse('')).toStrictEqual({ limit: 20, cursor: undefined });
    expect(pageLimits).toStrictEqual({ default: 20, max: 100 });
  });

  it.each([
    ['1', 1],
    ['7', 7],
    ['20', 20],
    ['99', 99],
    ['100', 100],
  ])('takes limit=%s as a page of %i', (limit, expected) => {
    expect(parse(`limit=${limit}`)).toStrictEqual({ limit: expected, cursor: undefined });
  });

  it('hands the cursor on as it came, for the store to judge against the limit', () => {
    expect(parse('limit=5&cursor=AbC-_9')).toStrictEqual({ limit: 5, cursor: 'AbC-_9' });
    expect(parse('cursor=')).toStrictEqual({ limit: 20, cursor: '' });
  });

  it('ignores parameters it does not know, as unknown body fields are', () => {
    expect(parse('limit=3&sort=name&__proto__=x&constructor=y')).toStrictEqual({
      limit: 3,
      cursor: undefined,
    });
  });

  it.each([
    ['zero', 'limit=0'],
    ['negative', 'limit=-1'],
    ['a fraction', 'limit=1.5'],
    ['a whole number written as a fraction', 'limit=1.0'],
    ['letters', 'limit=abc'],
    ['past int32', 'limit=2147483648'],
    ['past the maximum', 'limit=101'],
    ['far past the maximum', 'limit=1000'],
    ['empty', 'limit='],
    ['a bare name', 'limit'],
    ['a leading zero', 'limit=05'],
    ['a plus sign', 'limit=%2B5'],
    ['an exponent', 'limit=1e1'],
    ['hexadecimal', 'limit=0x10'],
    ['a leading space', 'limit=%205'],
    ['a trailing space', 'limit=5%20'],
    ['full-width digits', 'limit=%EF%BC%95'],
    ['Infinity', 'limit=Infinity'],
  ])('refuses a limit that is %s with a 400 naming limit', (_case, query) => {
    expect(refusal(query)).toStrictEqual({
      status: 400,
      message: 'limit must be an integer from 1 to 100',
    });
  });

  it.each([
    ['limit', 'limit=5&limit=5', 'limit must be given at most once'],
    ['limit', 'limit=5&limit=', 'limit must be given at most once'],
    ['limit', 'limit=1,2', 'limit must be given at most once'],
    ['cursor', 'cursor=a&cursor=b', 'cursor must be given at most once'],
    ['cursor', 'limit=5&cursor=a&cursor=a', 'cursor must be given at most once'],
  ])(
    'refuses a repeated %s (API Gateway joins the values with commas): %s',
    (_name, query, message) => {
      expect(refusal(query)).toStrictEqual({ status: 400, message });
    },
  );
});
