// A measuring sketch, not a product module: NewPlant's rules without zod, swapped into the shipped
// create-plant bundle by `npm run bench -- --swap without-zod:functions/plants/new-plant.ts=bench/alternatives/new-plant-without-zod.ts`
// to weigh what zod costs a cold request (docs/decisions/0126-what-zod-costs-a-cold-request.md).
// It accepts and stores a valid plant as new-plant.ts does; its error messages are not all the same.
import { exactInteger, topLevelNumberSource } from '../../functions/plants/exact-integer.ts';
import { int64, type NewPlant, plantOf } from '../../functions/plants/plant.ts';
import { InvalidPlantError } from '../../functions/plants/plant-errors.ts';
import { canonicalText, isPlantText } from '../../functions/plants/plant-text.ts';

export const limits = { nameMaxLength: 200, tagMaxLength: 64, bodyMaxBytes: 16 * 1024 } as const;

function text(body: Record<string, unknown>, field: string, maxLength: number) {
  const sent = body[field];
  if (typeof sent !== 'string') throw new InvalidPlantError(`${field} must be a string`);
  const length = [...sent].length;
  if (length < 1 || length > maxLength || !isPlantText(sent)) {
    throw new InvalidPlantError(`${field} is not a valid ${field}`);
  }
  return canonicalText(sent, maxLength);
}

export function parseNewPlant(body: unknown, rawBody: string): NewPlant {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new InvalidPlantError('Request body must be a JSON object');
  }
  const fields = body as Record<string, unknown>;
  const name = text(fields, 'name', limits.nameMaxLength);
  const tag = fields.tag === undefined ? undefined : text(fields, 'tag', limits.tagMaxLength);
  if (typeof fields.id !== 'number') throw new InvalidPlantError('id must be an integer');
  const id = exactInteger(topLevelNumberSource(rawBody, 'id'));
  if (id === undefined || id < int64.min || id > int64.max) {
    throw new InvalidPlantError('id must be an integer in int64');
  }
  return { id: id.toString(), ...plantOf(tag === undefined ? { name } : { name, tag }) };
}
