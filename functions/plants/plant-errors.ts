/**
 * What can go wrong with a plant, named for what happened. None of them knows HTTP: the API's
 * error table (`functions/failures.ts`) says what a client is told for each.
 */

/** The body is not a NewPlant; the message names the field and what to change. */
export class InvalidPlantError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidPlantError';
  }
}

/** The id is taken by a plant with other data; the stored plant stays as it is. */
export class PlantConflictError extends Error {
  readonly id: string;

  constructor(id: string) {
    super(`A different plant with id ${id} already exists`);
    this.name = 'PlantConflictError';
    this.id = id;
  }
}

/** The store throttled or could not be reached after bounded retries; the call may be retried. */
export class StoreUnavailableError extends Error {
  constructor(cause: unknown) {
    super('The plant store is unavailable', { cause });
    this.name = 'StoreUnavailableError';
  }
}

/** No plant has the id. */
export class PlantNotFoundError extends Error {
  readonly id: string;

  constructor(id: string) {
    super(`No plant has id ${id}`);
    this.name = 'PlantNotFoundError';
    this.id = id;
  }
}

/** The plant is not the revision the caller named: it changed since the caller read it. */
export class PlantChangedError extends Error {
  readonly id: string;

  constructor(id: string) {
    super(`Plant ${id} has changed since it was read: read it again, then retry with its ETag`);
    this.name = 'PlantChangedError';
    this.id = id;
  }
}
