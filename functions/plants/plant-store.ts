import type { NewPlant, Plant } from './plant.ts';
import type { PlantId } from './plant-id.ts';
import type { ReplaceCondition, Revision } from './plant-revision.ts';

export type CreateOutcome = 'created' | 'replayed';

export type StoredPlant = Plant & { readonly id: PlantId };

export type RevisedPlant = StoredPlant & { readonly revision: Revision };

export type ListRequest = {
  /** 1 to `maxListLimit`. */
  readonly limit: number;
  /** A page's `next`, given back unchanged with the same `limit`. */
  readonly cursor?: string | undefined;
};

export type PlantPage = {
  /** In no order a caller can rely on. */
  readonly plants: readonly StoredPlant[];
  /** Absent on the last page; a page may be empty or short. */
  readonly next?: string;
  /** Left out of `plants`; met again by every walk until removed. */
  readonly damaged?: readonly DamagedItem[];
};

/** An item put in the table past the API; `problem` never holds the item's content. */
export type DamagedItem = { readonly key: string; readonly problem: string };

/** A page at the size limits, every character escaped, stays under the DynamoDB client's cap. */
export const maxListLimit = 500;

/**
 * The port the handlers go through, each taking only what it uses. `create` never overwrites; a
 * list walk meets each plant present throughout it once; a conditional `delete` or `replace`
 * throws `PlantNotFoundError` or `PlantChangedError`. Adapters throw `plant-errors.ts`'s errors,
 * `InvalidCursorError` and `RangeError`, nothing of their transport.
 */
export type PlantStore = {
  create(plant: NewPlant): Promise<{ plant: Plant; outcome: CreateOutcome }>;
  list(request: ListRequest): Promise<PlantPage>;
  delete(id: PlantId, condition?: ReplaceCondition): Promise<{ deleted: boolean }>;
  get(id: PlantId): Promise<RevisedPlant | undefined>;
  replace(id: PlantId, plant: Plant, condition: ReplaceCondition): Promise<RevisedPlant>;
};

export function isReplay(stored: Plant, requested: Plant): boolean {
  return stored.name === requested.name && stored.tag === requested.tag;
}
