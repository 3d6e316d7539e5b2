import { int64 } from './plant.ts';

declare const plantIdBrand: unique symbol;

/** Canonical int64 text: DynamoDB would read `01` or `1.0` as 1, another plant. */
export type PlantId = string & { readonly [plantIdBrand]: true };

const canonicalInteger = /^(?:0|-?[1-9]\d*)$/;

export function asPlantId(text: string): PlantId | undefined {
  if (!canonicalInteger.test(text)) return undefined;
  const value = BigInt(text);
  return value >= int64.min && value <= int64.max ? (text as PlantId) : undefined;
}

/** Refused rather than read leniently, so `/plants/01` can never delete plant 1. */
export function parsePlantId(text: string): PlantId {
  const id = asPlantId(text);
  if (id !== undefined) return id;
  throw new InvalidPlantIdError(
    canonicalInteger.test(text)
      ? `id must be between ${int64.min} and ${int64.max}`
      : 'id must be an integer in canonical decimal form: digits only, an optional leading -, no leading zeros, no + sign, fraction, exponent or spaces, and not -0',
  );
}

export class InvalidPlantIdError extends Error {
  readonly field = 'id';

  constructor(message: string) {
    super(message);
    this.name = 'InvalidPlantIdError';
  }
}
