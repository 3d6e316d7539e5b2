import { operation as createPlant } from './create-plant/operation.ts';
import { operation as deletePlant } from './delete-plant/operation.ts';
import { operation as getPlant } from './get-plant/operation.ts';
import { operation as listPlants } from './list-plants/operation.ts';
import type { Operation } from './operation.ts';
import { operation as replacePlant } from './replace-plant/operation.ts';

/**
 * The API's operations: one import and one line each, in the order the docs list them. Each
 * declares itself in `functions/<name>/operation.ts` (see `operation.ts` for what it holds), and
 * everything else reads this list: the stack, the dev server, the pre-traffic check, the
 * benchmark and the tests.
 */
const declared = {
  createPlant,
  listPlants,
  getPlant,
  replacePlant,
  deletePlant,
};

export type OperationName = (typeof declared)[keyof typeof declared]['name'];

export const operations: readonly (Operation & { readonly name: OperationName })[] =
  Object.values(declared);

export { routeKey } from './operation.ts';

/** The operation of the list with this name; throws for a name the list does not hold. */
export function operationNamed(name: string): Operation & { readonly name: OperationName } {
  const operation = operations.find((each) => each.name === name);
  if (operation === undefined) throw new Error(`no operation of the list is named ${name}`);
  return operation;
}
export type { Operation };
