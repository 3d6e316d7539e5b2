import { roundMs } from '../http/access-log.ts';
import { noContentResponse } from '../http/respond.ts';
import { authorizedEdge, type OperationDependencies } from '../operation-edge.ts';
import { PlantChangedError, PlantNotFoundError } from '../plants/plant-errors.ts';
import { parsePlantId } from '../plants/plant-id.ts';
import type { PlantStore } from '../plants/plant-store.ts';
import { ifMatchCondition } from '../revised-plant-response.ts';
import { operation } from './operation.ts';

export type DeletePlantDependencies = OperationDependencies<Pick<PlantStore, 'delete'>>;

/**
 * DELETE /plants/{id}: one delete, conditional with If-Match. Without If-Match the answer is 204
 * whether or not the id held a plant (docs/decisions/0081-delete-absent-is-204.md): either way the
 * plant is gone, and a retried delete whose first answer was lost is told so rather than told 404.
 * The request log names which it was. With If-Match the plant is deleted only while it has one of
 * the ETags named, else 412 and it stays (docs/decisions/0130-preconditions.md).
 */
export function makeHandler({ store, ...edge }: DeletePlantDependencies) {
  return authorizedEdge(operation, edge).handler(async (event, context) => {
    // API Gateway fills `id` from the route's `{id}`; a missing one is refused like an empty one.
    const id = parsePlantId(event.pathParameters?.id ?? '');
    const condition = ifMatchCondition(context.precondition);
    const storeStartedAt = performance.now();
    const { deleted } = await store.delete(id, condition).catch((error: unknown) => {
      // If-Match is false when there is no current representation (RFC 9110 13.1.1): an absent
      // plant fails it as a changed one does, where a replace would answer 404.
      throw error instanceof PlantNotFoundError ? new PlantChangedError(id) : error;
    });
    context.storeLatencyMs = roundMs(performance.now() - storeStartedAt);
    context.outcome = (deleted ? 'deleted' : 'absent') satisfies keyof typeof operation.outcomes;
    return noContentResponse();
  });
}
