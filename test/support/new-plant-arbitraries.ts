import fc from 'fast-check';
import { limits } from '../../functions/plants/new-plant.ts';
import { int64 } from '../../functions/plants/plant.ts';

/**
 * fast-check arbitraries for request bodies around NewPlant. Each field arbitrary yields the
 * field's JSON source text (so number literals such as `1.0` or `1e2` survive) and what the
 * contract says of it: `valid` with the value it stands for, or invalid.
 */
export type FieldSample<T> =
  | { readonly present: true; readonly text: string; readonly valid: true; readonly value: T }
  | { readonly present: true; readonly text: string; readonly valid: false }
  | { readonly present: false; readonly valid: boolean };

/**
 * Characters the contract refuses in `name` and `tag` wherever they stand: control characters,
 * lone surrogates, line and paragraph separators and format characters (Cf). The contract lets
 * ZWNJ and ZWJ (Cf too) through in a few joining contexts; random text never gets them here, and
 * `joinedTexts` below sends those contexts on purpose.
 */
const refusedCharacter = /[\p{Cc}\p{Cs}\p{Cf}\p{Zl}\p{Zp}]/u;
/** The same class for `replace`; `test` keeps a flag-free one, as a `g` regex carries `lastIndex` over. */
const refusedCharacters = new RegExp(refusedCharacter.source, 'gu');

/**
 * Characters refused in any position: bidi controls, zero-width and invisible format characters,
 * and the line and paragraph separators.
 */
const refusedFormatCodes = [
  0x061c, 0x00ad, 0x200b, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2060, 0x2066,
  0x2067, 0x2068, 0x2069, 0xfeff, 0x2028, 0x2029,
];

/** Valid texts whose format characters are part of the writing, and text in NFD (decomposed). */
const joinedTexts = [
  'می\u200Cخواهم',
  'क्\u200Dष',
  '\u{1F469}\u{1F3FD}\u200D\u{1F4BB}',
  '\u{1F3F3}\uFE0F\u200D\u{1F308} rainbow',
  '\u{1F3F4}\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F} thistle',
  'Cafe\u0301',
  'Ka\u0308ktus',
];

/** Any JSON text for a string, some characters written as `\uXXXX` escapes, as a client may. */
export const jsonStringText = (value: string): fc.Arbitrary<string> =>
  fc
    .boolean()
    .map((escapeAll) =>
      escapeAll
        ? `"${[...value]
            .map((char) =>
              [...char].length === 1 && char.length === 1
                ? `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`
                : JSON.stringify(char).slice(1, -1),
            )
            .join('')}"`
        : JSON.stringify(value),
    );

/**
 * A valid `name` or `tag` as a client may send it (composed, decomposed or mixed): 1..max code
 * points as sent, with no refused character.
 */
export const validText = (maxLength: number): fc.Arbitrary<string> =>
  fc
    .tuple(
      fc.oneof(
        fc.string({ unit: 'grapheme', minLength: 1, maxLength }),
        fc.string({ unit: 'binary', minLength: 1, maxLength }),
        fc.constantFrom('Fern', 'Käktus', '🌵 cactus', 'x'.repeat(maxLength), '"quoted" \\ back'),
        // At the limit as sent, and longer than it once in NFC (each U+0958 becomes two).
        fc.constantFrom('e\u0301'.repeat(Math.floor(maxLength / 2)), '\u0958'.repeat(maxLength)),
        fc.constantFrom(...joinedTexts),
      ),
      fc.constantFrom('as generated', 'NFC', 'NFD'),
    )
    .map(([text, form]) => {
      const valid = joinedTexts.includes(text) ? text : text.replace(refusedCharacters, '_');
      return form === 'as generated' ? valid : valid.normalize(form);
    })
    .filter((text) => {
      const { length } = [...text];
      return length >= 1 && length <= maxLength;
    });

/**
 * What the contract stores and answers for valid text: its NFC form, or the text as sent when the
 * NFC form is longer than the limit (random text here has no joiner whose neighbours NFC changes).
 */
const storedText = (sent: string, maxLength: number): string => {
  const nfc = sent.normalize('NFC');
  return [...nfc].length <= maxLength ? nfc : sent;
};

/**
 * A string the contract refuses as `name` or `tag`: empty, too long, a control, format or line
 * separator character, a lone surrogate.
 */
export const invalidTextValue = (maxLength: number): fc.Arbitrary<string> =>
  fc.oneof(
    fc.constant(''),
    fc.string({ unit: 'grapheme-ascii', minLength: maxLength + 1, maxLength: maxLength + 40 }),
    // Over the limit as sent, within it once in NFC.
    fc.constant('e\u0301'.repeat(Math.floor(maxLength / 2) + 1)),
    fc
      .tuple(
        validText(Math.max(1, maxLength - 1)),
        fc.oneof(
          fc.integer({ min: 0, max: 0x1f }),
          fc.integer({ min: 0x7f, max: 0x9f }),
          fc.integer({ min: 0xd800, max: 0xdfff }),
          fc.constantFrom(...refusedFormatCodes),
        ),
        fc.nat(),
      )
      .map(([text, code, at]) => {
        const cut = at % (text.length + 1);
        return `${text.slice(0, cut)}${String.fromCharCode(code)}${text.slice(cut)}`;
      })
      .filter((text) => refusedCharacter.test(text)),
  );

/** JSON values of the wrong type for a string field (`null` included). */
export const notAString: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('null', 'true', 'false', '0', '1.5', '[]', '{}', '["Fern"]', '{"name":"Fern"}'),
  fc.integer().map(String),
);

export const textField = (
  maxLength: number,
  optional: boolean,
): fc.Arbitrary<FieldSample<string>> =>
  fc.oneof(
    {
      weight: 6,
      arbitrary: validText(maxLength).chain((sent) =>
        jsonStringText(sent).map(
          (text) =>
            ({ present: true, text, valid: true, value: storedText(sent, maxLength) }) as const,
        ),
      ),
    },
    {
      weight: 2,
      arbitrary: invalidTextValue(maxLength).chain((value) =>
        jsonStringText(value).map((text) => ({ present: true, text, valid: false }) as const),
      ),
    },
    {
      weight: 1,
      arbitrary: notAString.map((text) => ({ present: true, text, valid: false }) as const),
    },
    { weight: 1, arbitrary: fc.constant({ present: false, valid: optional } as const) },
  );

/** The JSON literals of one integer: `12`, `12.0`, `1.2e1`, `120e-1`, `12E+0`, ... */
export const integerLiteral = (value: bigint): fc.Arbitrary<string> => {
  const digits = (value < 0n ? -value : value).toString();
  const sign = value < 0n ? '-' : '';
  const trailingZeros = digits.length - digits.replace(/0+$/, '').length;
  return fc.oneof(
    fc.constant(`${value}`),
    fc.integer({ min: 1, max: 3 }).map((zeros) => `${value}.${'0'.repeat(zeros)}`),
    fc
      .constantFrom('e', 'E')
      .chain((e) => fc.constantFrom('', '+').map((plus) => `${value}${e}${plus}0`)),
    fc
      .integer({ min: 1, max: 4 })
      .map((shift) => (value === 0n ? '0' : `${value}${'0'.repeat(shift)}e-${shift}`)),
    fc.integer({ min: 0, max: Math.min(trailingZeros, 30) }).map((shift) => {
      const mantissa = digits.slice(0, digits.length - shift) || '0';
      const head = mantissa.slice(0, 1);
      const tail = mantissa.slice(1);
      const exponent = shift + tail.length;
      return `${sign}${head}${tail ? `.${tail}` : ''}e${exponent}`;
    }),
  );
};

export const validId: fc.Arbitrary<{ text: string; value: bigint }> = fc.oneof(
  fc
    .oneof(
      fc.bigInt({ min: int64.min, max: int64.max }),
      fc.constantFrom(0n, int64.min, int64.max, int64.max - 1n, 2n ** 53n + 1n, -(2n ** 53n) - 1n),
    )
    .chain((value) => integerLiteral(value).map((text) => ({ text, value }))),
  fc.constantFrom('-0', '-0.0', '0e5', '-0E-3').map((text) => ({ text, value: 0n })),
);

export const invalidIdText: fc.Arbitrary<string> = fc.oneof(
  fc.bigInt({ min: int64.max + 1n, max: int64.max * 4n }).map(String),
  fc.bigInt({ min: int64.min * 4n, max: int64.min - 1n }).map(String),
  fc
    .tuple(fc.bigInt({ min: int64.min, max: int64.max }), fc.integer({ min: 1, max: 999 }))
    .map(([whole, fraction]) => `${whole}.${String(fraction).padStart(3, '0').replace(/0+$/, '')}`),
  fc.constantFrom('1e400', '-1e400', '1e-400', '0.5', '1.5e0', '9223372036854775807.5', '1e19'),
  fc.constantFrom('"1"', '"9223372036854775807"', 'null', 'true', '[]', '{}', '[1]', '{"id":1}'),
);

export const idField: fc.Arbitrary<FieldSample<bigint>> = fc.oneof(
  {
    weight: 6,
    arbitrary: validId.map(
      ({ text, value }) => ({ present: true, text, valid: true, value }) as const,
    ),
  },
  {
    weight: 3,
    arbitrary: invalidIdText.map((text) => ({ present: true, text, valid: false }) as const),
  },
  { weight: 1, arbitrary: fc.constant({ present: false, valid: false } as const) },
);

/** Keys that do not collide with NewPlant's own; `__proto__` and `constructor` come up often. */
const extraKey = fc
  .oneof(
    fc.string({ maxLength: 8 }),
    fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'Id', 'NAME'),
  )
  .filter((key) => key !== 'id' && key !== 'name' && key !== 'tag');

/** JSON whitespace between tokens. */
export const jsonSpace = fc.string({ unit: fc.constantFrom(' ', '\t', '\n', '\r'), maxLength: 3 });

export type NewPlantCase = {
  readonly body: string;
  readonly id: FieldSample<bigint>;
  readonly name: FieldSample<string>;
  readonly tag: FieldSample<string>;
  /** How many members there are beyond NewPlant's own. */
  readonly extras: number;
};

/** An object around NewPlant: each field valid, invalid or missing, extra members, any order and spacing. */
export const newPlantCase: fc.Arbitrary<NewPlantCase> = fc
  .record({
    id: idField,
    name: textField(limits.nameMaxLength, false),
    tag: textField(limits.tagMaxLength, true),
    extras: fc.array(fc.tuple(extraKey, fc.jsonValue({ maxDepth: 3 })), { maxLength: 3 }),
    space: jsonSpace,
    seed: fc.nat(),
  })
  .map(({ id, name, tag, extras, space, seed }) => {
    const members: string[] = [];
    if (id.present) members.push(`"id":${space}${id.text}`);
    if (name.present) members.push(`"name":${name.text}`);
    if (tag.present) members.push(`"tag"${space}:${tag.text}`);
    for (const [key, value] of extras)
      members.push(`${JSON.stringify(key)}:${JSON.stringify(value)}`);
    const ordered = rotate(members, seed);
    const body = `${space}{${ordered.join(`,${space}`)}}${space}`;
    return { body, id, name, tag, extras: extras.length };
  });

function rotate<T>(items: T[], by: number): T[] {
  if (items.length === 0) return items;
  const at = by % items.length;
  return [...items.slice(at), ...items.slice(0, at)];
}

/**
 * Whether @middy/http-json-body-parser's prototype-pollution guard refuses a value: a `__proto__`
 * key anywhere, or a `constructor` key whose value has its own `prototype`.
 */
export function hasForbiddenKey(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  for (const [key, inner] of Object.entries(value)) {
    if (key === '__proto__') return true;
    if (
      key === 'constructor' &&
      typeof inner === 'object' &&
      inner !== null &&
      Object.hasOwn(inner, 'prototype')
    ) {
      return true;
    }
    if (hasForbiddenKey(inner)) return true;
  }
  return false;
}
