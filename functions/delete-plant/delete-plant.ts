import { roundMs } from '../http/access-log.ts';
import { noContentResponse } from '../http/respond.ts';
import { authorizedEdge, type OperationDependencies } from '../operation-edge.ts';
import { parsePlantId } from '../plants/plant-id.ts';
import type { PlantStore } from '../plants/plant-store.ts';
import { operation } from './operation.ts';

export type DeletePlantDependencies = OperationDependencies<Pick<PlantStore, 'delete'>>;

/**
 * DELETE /plants/{id}, in the order a request meets it:
 * edge (log, map errors) -> authorize -> parse the path's id -> store (one delete) -> respond.
 *
 * The answer is 204 whether or not the id held a plant (docs/decisions/0081-delete-absent-is-204.md):
 * either way the plant is gone, and a retried delete whose first answer was lost is told so
 * rather than told 404. The request log names which it was.
 */
export function makeHandler({ store, ...edge }: DeletePlantDependencies) {
  return authorizedEdge(operation, edge).handler(async (event, context) => {
    // API Gateway fills `id` from the route's `{id}`; a missing one is refused like an empty one.
    const id = parsePlantId(event.pathParameters?.id ?? '');
    const storeStartedAt = performance.now();
    const { deleted } = await store.delete(id);
    context.storeLatencyMs = roundMs(performance.now() - storeStartedAt);
    context.outcome = (deleted ? 'deleted' : 'absent') satisfies keyof typeof operation.outcomes;
    return noContentResponse();
  });
}
