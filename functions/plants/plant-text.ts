/**
 * Checked as sent, as `openapi.yaml`'s `pattern`. No control, surrogate, separator or invisible
 * format character, except joiners inside Arabic or Indic words (never beside Latin, Greek or
 * Cyrillic), in emoji ZWJ sequences, and a subdivision flag's tags. Each alternative starts with
 * a different kind of character, so matching stays linear.
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

/** `openapi.yaml`'s `pattern`; a test holds them together. */
export const plantTextPattern = `^(?:${allowedCharacter.join('|')})*$`;

const printableAscii = /^[\x20-\x7E]*$/;

/** Built on first need: building one is slow, on a cold start's critical path. */
let withoutFormatCharacters: RegExp | undefined;
let fullPattern: RegExp | undefined;

export function isPlantText(text: string): boolean {
  if (printableAscii.test(text)) return true;
  withoutFormatCharacters ??= new RegExp(`^${ordinaryCharacter}*$`, 'u');
  if (withoutFormatCharacters.test(text)) return true;
  fullPattern ??= new RegExp(plantTextPattern, 'u');
  return fullPattern.test(text);
}

/** NFC, unless that would break the rules the text passed (it can lengthen it or move a joiner). */

export function canonicalText(sent: string, maxLength: number): string {
  const nfc = sent.normalize('NFC');
  if (nfc === sent) return sent;
  return [...nfc].length <= maxLength && isPlantText(nfc) ? nfc : sent;
}
