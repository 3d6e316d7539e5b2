import { int64 } from './plant.ts';

declare const plantIdBrand: unique symbol;

/**
 * A plant's id as the canonical decimal text of an int64: what the table's key holds. Only
 * `asPlantId` and `parsePlantId` make one, so a store operation keyed by a `PlantId` cannot be
 * handed `01` or `1.0`, which DynamoDB would read as the number 1 and so act on another plant.
 */
export type PlantId = string & { readonly [plantIdBrand]: true };

/** `0`, or an optional `-` and a digit 1-9 followed by any further digits. */
const canonicalInteger = /^(?:0|-?[1-9]\d*)$/;

/** The id `text` is in canonical form and in range, or undefined. */
export function asPlantId(text: string): PlantId | undefined {
  if (!canonicalInteger.test(text)) return undefined;
  const value = BigInt(text);
  return value >= int64.min && value <= int64.max ? (text as PlantId) : undefined;
}

/**
 * The id named by a request's path: exactly the canonical decimal form, as `toString` writes a
 * number. Anything else is refused rather than read leniently, so that one plant has one id
 * and `/plants/01` can never delete plant 1.
 */
export function parsePlantId(text: string): PlantId {
  const id = asPlantId(text);
  if (id !== undefined) return id;
  throw new InvalidPlantIdError(
    canonicalInteger.test(text)
      ? `id must be between ${int64.min} and ${int64.max}`
      : 'id must be an integer in canonical decimal form: digits only, an optional leading -, no leading zeros, no + sign, fraction, exponent or spaces, and not -0',
  );
}

/** The id a request names is not an int64 in canonical form; the message says what to change. */
export class InvalidPlantIdError extends Error {
  readonly field = 'id';

  constructor(message: string) {
    super(message);
    this.name = 'InvalidPlantIdError';
  }
}
