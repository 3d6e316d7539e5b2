import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { listItemOf } from '../../../functions/plants/list-item.ts';
import { parsePlantId } from '../../../functions/plants/plant-id.ts';

/** The id's source text, read back as Node 24's JSON.parse hands it to a reviver. */
const idSources = (json: string) => {
  const sources: string[] = [];
  (
    JSON.parse as (
      text: string,
      reviver: (key: string, value: unknown, context?: { source?: string }) => unknown,
    ) => unknown
  )(json, (key, value, context) => {
    if (key === 'id' && context?.source !== undefined) sources.push(context.source);
    return value;
  });
  return sources;
};

describe('listItemOf', () => {
  it.each([
    ['9223372036854775807', '{"id":9223372036854775807,"name":"Max"}'],
    ['9223372036854775806', '{"id":9223372036854775806,"name":"Max"}'],
    ['-9223372036854775808', '{"id":-9223372036854775808,"name":"Max"}'],
    ['9007199254740993', '{"id":9007199254740993,"name":"Max"}'],
    ['0', '{"id":0,"name":"Max"}'],
  ])('writes the id %s as that exact JSON number', (id, json) => {
    expect(JSON.stringify(listItemOf({ id: parsePlantId(id), name: 'Max' }))).toBe(json);
  });

  it('writes id, name and tag in that order, and no tag when there is none', () => {
    const items = [
      listItemOf({ id: parsePlantId('1'), name: 'Fern', tag: 'indoor' }),
      listItemOf({ id: parsePlantId('2'), name: 'Ivy' }),
    ];

    expect(JSON.stringify(items)).toBe(
      '[{"id":1,"name":"Fern","tag":"indoor"},{"id":2,"name":"Ivy"}]',
    );
  });

  it('escapes name and tag as JSON strings', () => {
    const item = listItemOf({ id: parsePlantId('3'), name: 'Say "hi" \\ 🌿', tag: '</script>' });

    expect(JSON.parse(JSON.stringify(item))).toStrictEqual({
      id: 3,
      name: 'Say "hi" \\ 🌿',
      tag: '</script>',
    });
  });

  it('keeps every int64 exact in the JSON text', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), (value) => {
        const json = JSON.stringify([
          listItemOf({ id: parsePlantId(value.toString()), name: 'n' }),
        ]);

        expect(idSources(json)).toStrictEqual([value.toString()]);
      }),
    );
  });
});
