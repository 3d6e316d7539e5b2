import type { OperationChecks } from './checks/check.ts';
import { checks as createPlantChecks } from './create-plant/checks.ts';
import { operation as createPlant } from './create-plant/operation.ts';
import { checks as deletePlantChecks } from './delete-plant/checks.ts';
import { operation as deletePlant } from './delete-plant/operation.ts';
import { checks as getPlantChecks } from './get-plant/checks.ts';
import { operation as getPlant } from './get-plant/operation.ts';
import { checks as listPlantsChecks } from './list-plants/checks.ts';
import { operation as listPlants } from './list-plants/operation.ts';
import type { Operation } from './operation.ts';
import { checks as replacePlantChecks } from './replace-plant/checks.ts';
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

/**
 * How each operation of the list is tried (`functions/<name>/checks.ts`), by its name: one import
 * and one line each too, and the compiler wants a line for every operation of the list.
 */
const declaredChecks: { readonly [name in OperationName]: OperationChecks } = {
  'create-plant': createPlantChecks,
  'list-plants': listPlantsChecks,
  'get-plant': getPlantChecks,
  'replace-plant': replacePlantChecks,
  'delete-plant': deletePlantChecks,
};

export { routeKey } from './operation.ts';

/** The operation of the list with this name; throws for a name the list does not hold. */
export function operationNamed(name: string): Operation & { readonly name: OperationName } {
  const operation = operations.find((each) => each.name === name);
  if (operation === undefined) throw new Error(`no operation of the list is named ${name}`);
  return operation;
}

/** The sample and the checks of an operation of the list. */
export function checksOf(operation: Pick<Operation, 'name'>): OperationChecks {
  return declaredChecks[operationNamed(operation.name).name];
}
export type { Operation };
