// None knows HTTP: `functions/failures.ts` says what a client is told for each.

export class InvalidPlantError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidPlantError';
  }
}

export class PlantConflictError extends Error {
  readonly id: string;

  constructor(id: string) {
    super(`A different plant with id ${id} already exists`);
    this.name = 'PlantConflictError';
    this.id = id;
  }
}

export class StoreUnavailableError extends Error {
  constructor(cause: unknown) {
    super('The plant store is unavailable', { cause });
    this.name = 'StoreUnavailableError';
  }
}

export class PlantNotFoundError extends Error {
  readonly id: string;

  constructor(id: string) {
    super(`No plant has id ${id}`);
    this.name = 'PlantNotFoundError';
    this.id = id;
  }
}

export class PlantChangedError extends Error {
  readonly id: string;

  constructor(id: string) {
    super(`Plant ${id} has changed since it was read: read it again, then retry with its ETag`);
    this.name = 'PlantChangedError';
    this.id = id;
  }
}
