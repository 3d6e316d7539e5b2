import { roundMs } from '../http/access-log.ts';
import { matchesWeakly, strongEntityTag } from '../http/entity-tags.ts';
import { notModifiedResponse } from '../http/respond.ts';
import { authorizedEdge, type OperationDependencies } from '../operation-edge.ts';
import { PlantNotFoundError } from '../plants/plant-errors.ts';
import { parsePlantId } from '../plants/plant-id.ts';
import type { PlantStore } from '../plants/plant-store.ts';
import { revisedPlantResponse } from '../revised-plant-response.ts';
import { operation } from './operation.ts';

export type GetPlantDependencies = OperationDependencies<Pick<PlantStore, 'get'>>;

/**
 * A readable plant may be kept by the client that read it, and must be revalidated before each
 * use (docs/decisions/0128-a-read-plant-is-private-no-cache.md): `If-None-Match` then costs one
 * read and a bodiless 304.
 */
const readCaching = { 'cache-control': 'private, no-cache' } as const;

/**
 * GET /plants/{id}: one consistent read, answered 200 with the plant and its ETag, 304 when
 * If-None-Match names it, 404 when no plant has the id.
 */
export function makeHandler({ store, ...edge }: GetPlantDependencies) {
  return authorizedEdge(operation, edge).handler(async (event, context) => {
    const id = parsePlantId(event.pathParameters?.id ?? '');
    const storeStartedAt = performance.now();
    const plant = await store.get(id);
    context.storeLatencyMs = roundMs(performance.now() - storeStartedAt);
    if (plant === undefined) throw new PlantNotFoundError(id);
    if (context.precondition && matchesWeakly(context.precondition, plant.revision)) {
      context.outcome = 'not_modified' satisfies keyof typeof operation.outcomes;
      return notModifiedResponse({ etag: strongEntityTag(plant.revision), ...readCaching });
    }
    context.outcome = 'read' satisfies keyof typeof operation.outcomes;
    return revisedPlantResponse(plant, readCaching);
  });
}
