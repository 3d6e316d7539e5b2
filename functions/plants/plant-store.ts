import type { NewPlant, Plant } from './plant.ts';
import type { PlantId } from './plant-id.ts';
import type { ReplaceCondition, Revision } from './plant-revision.ts';

export type CreateOutcome = 'created' | 'replayed';

/** A plant as the store holds it: the Plant and its exact id. */
export type StoredPlant = Plant & { readonly id: PlantId };

/** A stored plant and which write of it is stored: what a read answers, and If-Match names. */
export type RevisedPlant = StoredPlant & { readonly revision: Revision };

export type ListRequest = {
  /** At most this many plants, an integer from 1 to `maxListLimit`. */
  readonly limit: number;
  /** Where to go on: a page's `next`, given back unchanged with the same `limit`. */
  readonly cursor?: string | undefined;
};

export type PlantPage = {
  /** In the store's own order, which is no order a caller can rely on. */
  readonly plants: readonly StoredPlant[];
  /** An opaque cursor to the rest, absent on the last page; a page may be empty or short. */
  readonly next?: string;
  /**
   * The items met on the way that are not plants the API would write, left out of `plants`;
   * absent when there were none. A damaged item is met again by every walk until it is removed.
   */
  readonly damaged?: readonly DamagedItem[];
};

/**
 * An item of the table that is no plant the API would have written (a key outside the int64
 * range or not an integer, no name, a tag that is not text), put there past the API: by a hand
 * edit, a script, another program. `key` is the item's key as the table holds it, the value an
 * operator deletes it by; `problem` says what is wrong, never the item's content.
 */
export type DamagedItem = { readonly key: string; readonly problem: string };

/**
 * The largest page the store reads at once: a page of plants at their size limits, with every
 * character escaped, stays well under the largest answer the DynamoDB client accepts.
 */
export const maxListLimit = 500;

/**
 * The port the handlers go through. `create` stores a new plant, or recognises an identical
 * earlier create as a replay; it never overwrites. `list` walks every plant page by page: a plant
 * present during a whole walk appears in it exactly once, and a damaged item is skipped and
 * reported beside the page rather than failing the walk. `delete` removes a plant if there is
 * one; `deleted` says whether this call found it (a retried attempt whose first answer was lost
 * may find it already gone). Given a `condition`, it removes the plant only when one is stored
 * and its revision meets it, in one conditional delete, and throws as `replace` does otherwise;
 * a retried attempt whose first answer was lost then finds none and throws `PlantNotFoundError`.
 * `get` reads one plant as last written, or undefined. `replace`
 * writes a plant over the stored one with a new revision, only when one is stored and its
 * revision meets `condition`, in one conditional write: `PlantNotFoundError` when none is,
 * `PlantChangedError` when its revision does not meet it; it never creates. Adapters throw the
 * errors of `plant-errors.ts`, `InvalidCursorError`
 * and `RangeError` for a limit out of range, and nothing of their own transport. A handler takes
 * only what it uses, e.g. `Pick<PlantStore, 'list'>`.
 */
export type PlantStore = {
  create(plant: NewPlant): Promise<{ plant: Plant; outcome: CreateOutcome }>;
  list(request: ListRequest): Promise<PlantPage>;
  delete(id: PlantId, condition?: ReplaceCondition): Promise<{ deleted: boolean }>;
  get(id: PlantId): Promise<RevisedPlant | undefined>;
  replace(id: PlantId, plant: Plant, condition: ReplaceCondition): Promise<RevisedPlant>;
};

/** Same id, same name and same tag (a missing tag only matches a missing tag). */
export function isReplay(stored: Plant, requested: Plant): boolean {
  return stored.name === requested.name && stored.tag === requested.tag;
}
