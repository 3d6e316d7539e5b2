/**
 * A plant as every operation handles it, without the rules of a valid new one: those are
 * `new-plant.ts`'s, which brings zod, so that only an operation that reads a NewPlant body
 * carries it. Listing and deleting read plants back from the table and ids from a path.
 */

export const int64 = { min: -(2n ** 63n), max: 2n ** 63n - 1n } as const;

/** The specification's Plant: a name, and a tag when it has one. */
export type Plant = { name: string; tag?: string };

/** A NewPlant with its id kept exact as a canonical decimal string (int64 does not fit a JS number). */
export type NewPlant = Plant & { readonly id: string };

/** Exactly a Plant: `name`, and `tag` only when there is one (never `tag: undefined`, never `id`). */
export function plantOf({ name, tag }: { name: string; tag?: string | undefined }): Plant {
  return tag === undefined ? { name } : { name, tag };
}
