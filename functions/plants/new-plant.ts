import * as z from 'zod/mini';
import { int64, type NewPlant, plantOf } from './plant.ts';
import { InvalidPlantError } from './plant-errors.ts';

/**
 * What a valid plant is. This zod schema is the only definition of NewPlant: `openapi.yaml`
 * documents the same bounds and a test fails when the two drift.
 */
export const limits = {
  nameMaxLength: 200,
  tagMaxLength: 64,
  /** The handler refuses larger bodies with 413; a NewPlant at its limits is under 2 KiB. */
  bodyMaxBytes: 16 * 1024,
} as const;

/**
 * What a name or tag may contain, checked on the text as sent, as `openapi.yaml`'s `pattern` is by
 * any JSON Schema validator. Refused: control characters
 * (tab and newline included), lone surrogates (DynamoDB cannot store them), line and paragraph
 * separators, and invisible format characters (general category Cf: bidi overrides and isolates
 * that make text display in another order, zero-width spaces, word joiners, BOMs, soft hyphens),
 * except where a format character is part of how something is written:
 * - ZWNJ and ZWJ between two letters or marks, as Arabic-script and Indic words are spelled,
 *   but not next to a Latin, Greek or Cyrillic letter: those scripts never use joiners, and
 *   "Fe\u200Drn" would only be "Fern" with something hidden in it;
 * - ZWJ inside an emoji ZWJ sequence (👩🏽‍💻, 🏳️‍🌈), between two pictographs;
 * - the tag characters of a subdivision flag (🏴 + a 2-letter region, 1 to 3 letters or digits
 *   and the cancel tag: England, Scotland, Wales), and nowhere else.
 * Each alternative starts with a different kind of character, so matching stays linear.
 */
const joinable = '[\\p{L}\\p{M}]';
const neverJoined = '[\\p{Script=Latin}\\p{Script=Greek}\\p{Script=Cyrillic}]';
const ordinaryCharacter = '[^\\p{Cc}\\p{Cs}\\p{Cf}\\p{Zl}\\p{Zp}]';
const allowedCharacter = [
  ordinaryCharacter,
  `(?<=${joinable})(?<!${neverJoined})[\\u200C\\u200D](?=${joinable})(?!${neverJoined})`,
  '(?<=\\p{Extended_Pictographic}\\p{Emoji_Modifier}?\\uFE0F?)\\u200D(?=\\p{Extended_Pictographic})',
  '(?<=\\u{1F3F4})[\\u{E0061}-\\u{E007A}]{2}[\\u{E0030}-\\u{E0039}\\u{E0061}-\\u{E007A}]{1,3}\\u{E007F}',
];

/** The rule as one regular expression: `openapi.yaml`'s `pattern`, which a test holds to it. */
export const plantTextPattern = `^(?:${allowedCharacter.join('|')})*$`;

/** Printable ASCII has no character of the refused categories: nearly every name, always valid. */
const printableAscii = /^[\x20-\x7E]*$/;

/**
 * Each Unicode-property expression is built on the first text that needs it: building one is slow,
 * and a cold start's first request would pay for it on the critical path.
 */
let withoutFormatCharacters: RegExp | undefined;
let fullPattern: RegExp | undefined;

/**
 * Whether text obeys `plantTextPattern`. Text without any format character, which the pattern's
 * first alternative alone accepts, is settled without its joiner alternatives.
 */
export function isPlantText(text: string): boolean {
  if (printableAscii.test(text)) return true;
  withoutFormatCharacters ??= new RegExp(`^${ordinaryCharacter}*$`, 'u');
  if (withoutFormatCharacters.test(text)) return true;
  fullPattern ??= new RegExp(plantTextPattern, 'u');
  return fullPattern.test(text);
}

/**
 * A name or tag: checked as sent, so that it is valid exactly when `openapi.yaml` says it is (a
 * length is a count of code points, as JSON Schema's `maxLength` counts), then kept in its NFC form.
 */
const text = (field: string, maxLength: number) =>
  z
    .string({
      error: (issue) =>
        issue.input === undefined ? `${field} is required` : `${field} must be a string`,
    })
    .check(
      z.minLength(1, `${field} must not be empty`),
      z.maxLength(maxLength, `${field} must be at most ${maxLength} characters`),
      z.refine(
        isPlantText,
        `${field} must not contain control, invisible or bidirectional formatting characters, line separators or lone surrogates`,
      ),
      z.meta({ pattern: plantTextPattern }),
      z.overwrite((sent) => canonicalText(sent, maxLength)),
    );

/**
 * The NFC form of valid text, so that "Café" typed with a combining accent is the same plant as
 * "Café" typed precomposed. NFC can make text longer (U+0958 becomes two code points) or move a
 * joiner next to a Latin letter, and a stored plant must still be a valid Plant: text whose NFC
 * form would break the rules it passed is kept as sent.
 */
function canonicalText(sent: string, maxLength: number): string {
  const nfc = sent.normalize('NFC');
  if (nfc === sent) return sent;
  return [...nfc].length <= maxLength && isPlantText(nfc) ? nfc : sent;
}

/** The id's type check; its exact value is read from the source text by `exactInteger`. */
export const idSchema = z
  .number({
    error: (issue) => (issue.input === undefined ? 'id is required' : 'id must be an integer'),
  })
  .check(z.refine(Number.isInteger, 'id must be an integer'));

export const plantSchema = z.object({
  name: text('name', limits.nameMaxLength),
  tag: z.optional(text('tag', limits.tagMaxLength)),
});

export const newPlantSchema = z.extend(plantSchema, { id: idSchema });

/**
 * Body (as parsed by the JSON body parser) and its raw text -> NewPlant, or a 400 naming the field.
 * The id is read from the raw text because JSON.parse rounds integers above 2^53.
 */
export function parseNewPlant(body: unknown, rawBody: string): NewPlant {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new InvalidPlantError('Request body must be a JSON object');
  }
  const result = newPlantSchema.safeParse(body);
  if (!result.success) {
    throw new InvalidPlantError(
      result.error.issues[0]?.message ?? 'Request body is not a NewPlant',
    );
  }
  const id = exactInteger(topLevelNumberSource(rawBody, 'id'));
  if (id === undefined) throw new InvalidPlantError('id must be an integer');
  if (id < int64.min || id > int64.max) {
    throw new InvalidPlantError(`id must be between ${int64.min} and ${int64.max}`);
  }
  return { id: id.toString(), ...plantOf(result.data) };
}

/**
 * The source text of a number-valued key of the top-level object. Node 24's JSON.parse hands a
 * reviver each primitive's source text; holders are keyed so that a nested `id` is never taken.
 */
function topLevelNumberSource(rawBody: string, key: string): string {
  const sources = new WeakMap<object, string>();
  const root = parseWithSource(rawBody, function (this: object, k, value, context) {
    if (k === key && typeof value === 'number' && context?.source !== undefined) {
      sources.set(this, context.source);
    }
    return value;
  });
  return (typeof root === 'object' && root !== null && sources.get(root)) || '';
}

/** JSON.parse as Node 24 runs it (the TC39 source-text-access proposal); TypeScript's lib predates it. */
const parseWithSource = JSON.parse as (
  text: string,
  reviver: (this: object, key: string, value: unknown, context?: { source?: string }) => unknown,
) => unknown;

const jsonNumber = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/**
 * The exact integer a JSON number literal denotes, or undefined when it has a fractional part.
 * `1.0`, `1e2` and `-0` are integers, as in JSON Schema; exponents past int64's 19 digits are
 * clamped, since anything that large is out of range anyway.
 */
export function exactInteger(literal: string): bigint | undefined {
  const match = jsonNumber.exec(literal);
  if (!match) return undefined;
  const [, sign = '', whole = '', fraction = '', exponentText = '0'] = match;
  const digits = (whole + fraction).replace(/^0+(?=\d)/, '');
  const exponent = Number(exponentText) - fraction.length;
  if (/^0+$/.test(digits)) return 0n;
  let value: bigint;
  if (exponent >= 0) {
    value = BigInt(digits) * 10n ** BigInt(Math.min(exponent, 20));
  } else {
    const cut = digits.length + exponent;
    if (!/^0*$/.test(digits.slice(Math.max(cut, 0)))) return undefined;
    value = cut > 0 ? BigInt(digits.slice(0, cut)) : 0n;
  }
  return sign === '-' ? -value : value;
}
