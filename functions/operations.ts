import { operation as createPlant } from './create-plant/operation.ts';
import { operation as deletePlant } from './delete-plant/operation.ts';
import { operation as listPlants } from './list-plants/operation.ts';
import type { Operation } from './operation.ts';

/**
 * The API's operations: one import and one line each, in the order the docs list them. Each
 * declares itself in `functions/<name>/operation.ts` (see `operation.ts` for what it holds), and
 * everything else reads this list: the stack, the dev server, the pre-traffic check, the
 * benchmark and the tests.
 */
const declared = {
  createPlant,
  listPlants,
  deletePlant,
};

export type OperationName = (typeof declared)[keyof typeof declared]['name'];

export const operations: readonly (Operation & { readonly name: OperationName })[] =
  Object.values(declared);

export { routeKey } from './operation.ts';
export type { Operation };
