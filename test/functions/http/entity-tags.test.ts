import { describe, expect, it } from 'vitest';
import {
  type EntityTagList,
  matchesWeakly,
  maxEntityTags,
  parseEntityTags,
  strongOpaques,
} from '../../../functions/http/entity-tags.ts';
import { HttpError } from '../../../functions/http/http-error.ts';

const parsed = (value: string | undefined): EntityTagList | undefined =>
  parseEntityTags('If-Match', value);

/** The 400 a header is refused with, or undefined when it parses. */
function refusal(value: string): { status: number; message: string } | undefined {
  try {
    parseEntityTags('If-None-Match', value);
    return undefined;
  } catch (error) {
    if (!(error instanceof HttpError)) throw error;
    return { status: error.statusCode, message: error.message };
  }
}

describe('parseEntityTags', () => {
  it('reads no header as no precondition', () => {
    expect(parsed(undefined)).toBeUndefined();
  });

  it.each(['*', ' *', '*\t', ' \t* \t'])('reads %j as any current representation', (value) => {
    expect(parsed(value)).toStrictEqual({ any: true });
  });

  it.each<[string, string, EntityTagList]>([
    ['one strong tag', '"abc"', { any: false, tags: [{ weak: false, opaque: 'abc' }] }],
    ['one weak tag', 'W/"abc"', { any: false, tags: [{ weak: true, opaque: 'abc' }] }],
    ['an empty opaque part', '""', { any: false, tags: [{ weak: false, opaque: '' }] }],
    [
      'a list, with spaces and tabs around its elements and empty ones between',
      ' "a" ,\t, W/"b",,"c"\t',
      {
        any: false,
        tags: [
          { weak: false, opaque: 'a' },
          { weak: true, opaque: 'b' },
          { weak: false, opaque: 'c' },
        ],
      },
    ],
    // etagc of RFC 9110 allows a comma inside the quotes: the list splits only outside them.
    ['a comma inside a tag', '"a,b"', { any: false, tags: [{ weak: false, opaque: 'a,b' }] }],
    [
      'commas inside and between tags',
      'W/"x,y", "a,b" ,","',
      {
        any: false,
        tags: [
          { weak: true, opaque: 'x,y' },
          { weak: false, opaque: 'a,b' },
          { weak: false, opaque: ',' },
        ],
      },
    ],
    [
      'obs-text inside a tag',
      '"caf\u00e9\u00a0"',
      { any: false, tags: [{ weak: false, opaque: 'caf\u00e9\u00a0' }] },
    ],
  ])('reads %s', (_case, value, list) => {
    expect(parsed(value)).toStrictEqual(list);
  });

  it(`reads ${maxEntityTags} tags, each with a comma in it`, () => {
    const value = Array.from({ length: maxEntityTags }, (_, n) => `"${n},${n}"`).join(', ');

    expect(parsed(value)).toMatchObject({ any: false, tags: { length: maxEntityTags } });
  });

  it.each([
    ['no quotes', 'abc'],
    ['a quote inside a tag', '"a"b"'],
    ['an unclosed quote', '"a'],
    ['an unclosed quote holding a comma', '"a,b'],
    ['a comma-separated pair that is not quoted as one', 'a,b'],
    ['two tags without a comma between them', '"a" "b"'],
    ['* in a list', '*, "a"'],
    ['a lowercase weak prefix', 'w/"a"'],
    ['a space inside a tag', '" a"'],
    ['a control character inside a tag', '"a\tb"'],
    // Only spaces and tabs are optional whitespace; a no-break space beside a tag is malformed.
    ['a no-break space before a tag', '\u00a0"a"'],
    ['a no-break space after a tag', '"a"\u00a0'],
    ['a no-break space beside a list element', '"a",\u00a0"b"'],
    ['a no-break space beside *', '*\u00a0'],
    ['an ideographic space beside a tag', '\u3000"a"'],
    ['a line feed beside a tag', '"a"\n'],
  ])('refuses %s (%j) with a 400 naming the header', (_case, value) => {
    expect(refusal(value)).toStrictEqual({
      status: 400,
      message:
        'If-None-Match must be * or a list of entity tags such as "abc" or W/"abc", each in double quotes',
    });
  });

  // A list of zero tags, which the grammar allows: refused as malformed (decision 0130).
  it.each([
    ['an empty value', ''],
    ['only whitespace', ' \t '],
    ['only a comma', ','],
    ['only commas and whitespace', ' , ,\t,'],
  ])('refuses %s (%j), a list of no tag, with a 400 naming the header', (_case, value) => {
    expect(refusal(value)).toStrictEqual({
      status: 400,
      message: 'If-None-Match must be * or a list of entity tags such as "abc"',
    });
  });

  it(`refuses ${maxEntityTags + 1} tags with a 400 naming the limit, commas in quotes not counted`, () => {
    const value = Array.from({ length: maxEntityTags + 1 }, (_, n) => `"${n},x"`).join(',');

    expect(refusal(value)).toStrictEqual({
      status: 400,
      message: `If-None-Match must name at most ${maxEntityTags} entity tags`,
    });
  });
});

describe('comparing a parsed list with a plant', () => {
  const list = (value: string) => parsed(value) as EntityTagList & { any: false };

  it('matches weakly whatever the weakness, and * always', () => {
    expect(matchesWeakly(list('W/"a,b"'), 'a,b')).toBe(true);
    expect(matchesWeakly(list('"a", "b"'), 'b')).toBe(true);
    expect(matchesWeakly(list('"a,b"'), 'a')).toBe(false);
    expect(matchesWeakly({ any: true }, 'anything')).toBe(true);
  });

  it('offers only strong tags to a strong comparison', () => {
    expect(strongOpaques(list('W/"a", "b,c", W/"d"'))).toStrictEqual(['b,c']);
  });
});
