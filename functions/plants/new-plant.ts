import * as z from 'zod/mini';
import { exactInteger, topLevelNumberSource } from './exact-integer.ts';
import { int64, type NewPlant, type Plant, plantOf } from './plant.ts';
import { InvalidPlantError } from './plant-errors.ts';
import { canonicalText, isPlantText, plantTextPattern } from './plant-text.ts';

/** The only definition of NewPlant; a test holds `openapi.yaml` to it. */
export const limits = {
  nameMaxLength: 200,
  tagMaxLength: 64,
  /** Larger bodies get 413. */
  bodyMaxBytes: 16 * 1024,
} as const;

/** Checked as sent, lengths in code points as JSON Schema counts, then kept in NFC. */
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

/** Its exact value is read from the source text. */
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

/** The id from the raw text: JSON.parse rounds integers above 2^53. */
export function parseNewPlant(body: unknown, rawBody: string): NewPlant {
  const plant = parseWith(newPlantSchema, body, 'NewPlant');
  return { id: exactId(rawBody).toString(), ...plantOf(plant) };
}

export const replacementSchema = z.extend(plantSchema, { id: z.optional(idSchema) });

/** An `id`, for a client that sends back what it read, only when it is exactly the path's. */
export function parsePlantReplacement(body: unknown, rawBody: string, pathId: string): Plant {
  const plant = parseWith(replacementSchema, body, 'Plant');
  if (plant.id !== undefined && exactId(rawBody) !== BigInt(pathId)) {
    throw new InvalidPlantError(`id must be the path's id, ${pathId}, or left out`);
  }
  return plantOf(plant);
}

function parseWith<Schema extends z.ZodMiniType>(
  schema: Schema,
  body: unknown,
  what: string,
): z.output<Schema> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new InvalidPlantError('Request body must be a JSON object');
  }
  const result = schema.safeParse(body);
  if (!result.success) {
    throw new InvalidPlantError(result.error.issues[0]?.message ?? `Request body is not a ${what}`);
  }
  return result.data;
}

function exactId(rawBody: string): bigint {
  const id = exactInteger(topLevelNumberSource(rawBody, 'id'));
  if (id === undefined) throw new InvalidPlantError('id must be an integer');
  if (id < int64.min || id > int64.max) {
    throw new InvalidPlantError(`id must be between ${int64.min} and ${int64.max}`);
  }
  return id;
}
