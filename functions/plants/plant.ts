// Without the rules of a valid new one: `new-plant.ts` brings zod, for the operations that need it.

export const int64 = { min: -(2n ** 63n), max: 2n ** 63n - 1n } as const;

export type Plant = { name: string; tag?: string };

/** The id as decimal text: int64 does not fit a JS number. */
export type NewPlant = Plant & { readonly id: string };

/** Never `tag: undefined`, never `id`. */
export function plantOf({ name, tag }: { name: string; tag?: string | undefined }): Plant {
  return tag === undefined ? { name } : { name, tag };
}
