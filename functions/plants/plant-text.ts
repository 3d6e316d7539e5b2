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
 * The NFC form of valid text, so that "Café" typed with a combining accent is the same plant as
 * "Café" typed precomposed. NFC can make text longer (U+0958 becomes two code points) or move a
 * joiner next to a Latin letter, and a stored plant must still be a valid Plant: text whose NFC
 * form would break the rules it passed is kept as sent.
 */
export function canonicalText(sent: string, maxLength: number): string {
  const nfc = sent.normalize('NFC');
  if (nfc === sent) return sent;
  return [...nfc].length <= maxLength && isPlantText(nfc) ? nfc : sent;
}
