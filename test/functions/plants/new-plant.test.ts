import { describe, expect, it } from 'vitest';
import { parseNewPlant } from '../../../functions/plants/new-plant.ts';
import { InvalidPlantError } from '../../../functions/plants/plant-errors.ts';
import { isPlantText } from '../../../functions/plants/plant-text.ts';

const parse = (raw: string) => parseNewPlant(JSON.parse(raw), raw);
const rejection = (raw: string) => {
  try {
    parse(raw);
  } catch (error) {
    if (error instanceof InvalidPlantError) return error.message;
    throw error;
  }
  throw new Error(`accepted ${raw}`);
};

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
    ['a string', '"plant"', 'Request body must be a JSON object'],
    ['a missing id', '{"name":"a"}', 'id is required'],
    ['a boolean id', '{"id":true,"name":"a"}', 'id must be an integer'],
    ['a null name', '{"id":1,"name":null}', 'name must be a string'],
    ['a null tag', '{"id":1,"name":"a","tag":null}', 'tag must be a string'],
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
      'name must not contain control, invisible or bidirectional formatting characters, line separators or lone surrogates',
    ],
    [
      'a NUL in the tag',
      '{"id":1,"name":"a","tag":"\\u0000"}',
      'tag must not contain control, invisible or bidirectional formatting characters, line separators or lone surrogates',
    ],
    [
      'a lone surrogate',
      '{"id":1,"name":"\\ud800"}',
      'name must not contain control, invisible or bidirectional formatting characters, line separators or lone surrogates',
    ],
  ])('refuses %s with a message naming the field', (_case, raw, message) => {
    expect(rejection(raw)).toBe(message);
  });
});

describe('parseNewPlant on what a name or tag may contain', () => {
  // The cases spell every invisible code point as an escape, so the source shows what is sent.
  const withName = (name: string, tag?: string) =>
    JSON.stringify(tag === undefined ? { id: 1, name } : { id: 1, name, tag });
  const refused = (field: string) =>
    `${field} must not contain control, invisible or bidirectional formatting characters, line separators or lone surrogates`;

  it.each([
    ['a right-to-left override (U+202E)', 'evil\u202Etxt.exe'],
    ['a left-to-right embedding (U+202A)', 'a\u202Ab'],
    ['a pop directional formatting (U+202C)', 'ab\u202C'],
    ['a right-to-left isolate (U+2067)', 'a\u2067b\u2069'],
    ['a first strong isolate (U+2068)', '\u2068ab'],
    ['a right-to-left mark (U+200F)', 'a\u200Fb'],
    ['a left-to-right mark (U+200E)', 'a\u200Eb'],
    ['an Arabic letter mark (U+061C)', '\u0628\u061C\u0628'],
    ['a zero-width space (U+200B)', 'Fe\u200Brn'],
    ['a word joiner (U+2060)', 'Fe\u2060rn'],
    ['a zero-width no-break space (U+FEFF)', '\uFEFFFern'],
    ['a soft hyphen (U+00AD)', 'Fe\u00ADrn'],
    ['a line separator (U+2028)', 'Fern\u2028Moss'],
    ['a paragraph separator (U+2029)', 'Fern\u2029Moss'],
    ['a zero-width joiner inside a Latin word', 'Fe\u200Drn'],
    ['a zero-width non-joiner inside a Latin word', 'Fe\u200Crn'],
    ['a zero-width joiner at the start', '\u200D\u0915'],
    ['a zero-width joiner at the end', '\u{1F469}\u200D'],
    ['a zero-width joiner between two spaces', 'a \u200D b'],
    ['a tag character outside a flag', 'Fern\u{E0067}\u{E0062}'],
    ['a flag tag sequence without its cancel tag', '\u{1F3F4}\u{E0067}\u{E0062}\u{E0073}'],
    ['an interlinear annotation anchor (U+FFF9)', 'a\uFFF9b'],
  ])('refuses %s', (_case, name) => {
    expect(rejection(withName(name))).toBe(refused('name'));
    expect(rejection(withName('Fern', name))).toBe(refused('tag'));
  });

  it.each([
    ['an emoji ZWJ sequence', '\u{1F469}\u{1F3FD}\u200D\u{1F4BB}'],
    ['the rainbow flag (ZWJ after a variation selector)', '\u{1F3F3}\uFE0F\u200D\u{1F308}'],
    ['a family of three', '\u{1F468}\u200D\u{1F469}\u200D\u{1F467}'],
    [
      'the flag of Scotland (a tag sequence)',
      '\u{1F3F4}\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}',
    ],
    ['a keycap', '1\uFE0F\u20E3'],
    [
      'a Persian word with a zero-width non-joiner',
      '\u0645\u06CC\u200C\u062E\u0648\u0627\u0647\u0645',
    ],
    ['a Devanagari half form with a zero-width joiner', '\u0915\u094D\u200D\u0937'],
    ['a no-break space and an ideographic space', 'Aloe\u00A0vera\u3000\u82A6\u835F'],
  ])('accepts %s, whose format characters are part of the writing', (_case, name) => {
    expect(parse(withName(name, name))).toStrictEqual({ id: '1', name, tag: name });
  });

  it('normalizes a name and a tag to NFC, so canonically equivalent spellings are equal', () => {
    const decomposed = 'Cafe\u0301';
    const composed = 'Caf\u00E9';

    const plant = parse(withName(decomposed, `Ka\u0308ktus ${decomposed}`));

    expect(plant).toStrictEqual({ id: '1', name: composed, tag: `K\u00E4ktus ${composed}` });
    expect(parse(withName(composed))).toStrictEqual({ id: '1', name: composed });
  });

  it('counts the length in code points of the text as sent, as JSON Schema counts maxLength', () => {
    const decomposed = (count: number) => 'e\u0301'.repeat(count);

    expect(parse(withName(decomposed(100))).name).toBe('\u00E9'.repeat(100));
    expect(rejection(withName(decomposed(101)))).toBe('name must be at most 200 characters');
    expect(rejection(withName(decomposed(150)))).toBe('name must be at most 200 characters');
    expect(parse(withName('\u{1F33F}'.repeat(200))).name).toBe('\u{1F33F}'.repeat(200));
    expect(rejection(withName('\u{1F33F}'.repeat(201)))).toBe(
      'name must be at most 200 characters',
    );
  });

  it('keeps text as sent when its NFC form would break the limits it passed, so the answer stays a valid Plant', () => {
    // NFC turns U+0958 into U+0915 U+093C: 150 of them are 300 code points once normalized.
    const qa = '\u0958'.repeat(150);
    // NFC composes e + U+0301 into a Latin letter, which a joiner may not follow.
    const joined = 'e\u0301\u200C\u0915';

    expect(parse(withName(qa, '\u0958'.repeat(64)))).toStrictEqual({
      id: '1',
      name: qa,
      tag: '\u0958'.repeat(64),
    });
    expect(parse(withName('\u0958'.repeat(100))).name).toBe('\u0915\u093C'.repeat(100));
    expect(parse(withName(joined)).name).toBe(joined);
    expect(isPlantText(joined.normalize('NFC'))).toBe(false);
  });
});
