import type { StoredPlant } from './plant-store.ts';

/** What `JSON.rawJSON` makes: a value `JSON.stringify` writes as its text, unchanged. */
export type RawJson = { readonly rawJSON: string };

/** Node 24's `JSON.rawJSON` (ES2026); TypeScript's lib predates it. */
const rawJson = (JSON as unknown as { rawJSON(text: string): RawJson }).rawJSON;

/** One item of a list answer, for `JSON.stringify`: `id` first, then the Plant. */
export type PlantListItem = { readonly id: RawJson; readonly name: string; readonly tag?: string };

/**
 * The JSON value of a listed plant: its id written as the exact JSON number NewPlant takes
 * (`9223372036854775807`: not a string, and not `9223372036854776000`, the nearest double), its
 * name, and its tag only when it has one. JavaScript numbers lose integers above 2^53, so the
 * id's canonical decimal text is written as is.
 */
export function listItemOf({ id, name, tag }: StoredPlant): PlantListItem {
  return tag === undefined ? { id: rawJson(id), name } : { id: rawJson(id), name, tag };
}
