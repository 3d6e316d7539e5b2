import { operation as createPlant } from './create-plant/operation.ts';
import { operation as deletePlant } from './delete-plant/operation.ts';
import { operation as listPlants } from './list-plants/operation.ts';

/**
 * The API's operations, one line each. Each declares itself in `functions/<name>/operation.ts`
 * (see `operation.ts` for what it holds); everything else reads this list: the stack, the dev
 * server, the pre-traffic check, the benchmark and the tests.
 */
export const operations = [createPlant, listPlants, deletePlant] as const;

export type OperationName = (typeof operations)[number]['name'];

export type { Operation } from './operation.ts';
export { routeKey } from './operation.ts';
