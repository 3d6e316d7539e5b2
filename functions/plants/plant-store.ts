import type { NewPlant, Plant } from './new-plant.ts';

export type CreateOutcome = 'created' | 'replayed';

/**
 * The port the handler writes through. `create` stores a new plant, or recognises an identical
 * earlier create as a replay; it never overwrites. Adapters throw the errors below and nothing
 * of their own transport.
 */
export type PlantStore = {
  create(plant: NewPlant): Promise<{ plant: Plant; outcome: CreateOutcome }>;
};

/** The id is taken by a plant with other data; the stored plant stays as it is. */
export class PlantConflictError extends Error {
  readonly id: string;

  constructor(id: string) {
    super(`A different plant with id ${id} already exists`);
    this.name = 'PlantConflictError';
    this.id = id;
  }
}

/** The store throttled or could not be reached after bounded retries; the write may be retried. */
export class StoreUnavailableError extends Error {
  constructor(cause: unknown) {
    super('The plant store is unavailable', { cause });
    this.name = 'StoreUnavailableError';
  }
}

/** Same id, same name and same tag (a missing tag only matches a missing tag). */
export function isReplay(stored: Plant, requested: Plant): boolean {
  return stored.name === requested.name && stored.tag === requested.tag;
}
