import { roundMs } from '../http/access-log.ts';
import { parseJsonBody } from '../http/parse-json-body.ts';
import { requireJsonBody } from '../http/require-json-body.ts';
import { authorizedEdge, type OperationDependencies } from '../operation-edge.ts';
import { limits, parsePlantReplacement } from '../plants/new-plant.ts';
import { parsePlantId } from '../plants/plant-id.ts';
import type { PlantStore } from '../plants/plant-store.ts';
import { ifMatchCondition, revisedPlantResponse } from '../revised-plant-response.ts';
import { operation } from './operation.ts';

export type ReplacePlantDependencies = OperationDependencies<Pick<PlantStore, 'replace'>>;

/**
 * PUT /plants/{id}: a JSON body, parsed and validated, written in one conditional write, answered
 * 200 with the plant and its new ETag, 404 when no plant has the id (a PUT never creates), 412
 * when If-Match names none of the plant's ETags. Without If-Match the replace is unconditional.
 */
export function makeHandler({ store, ...edge }: ReplacePlantDependencies) {
  return authorizedEdge(operation, edge)
    .use(requireJsonBody(limits.bodyMaxBytes))
    .use(parseJsonBody())
    .handler(async (event, context) => {
      const id = parsePlantId(event.pathParameters?.id ?? '');
      const condition = ifMatchCondition(context.precondition) ?? { kind: 'any' };
      const plant = parsePlantReplacement(event.body, context.rawBody ?? '', id);
      const storeStartedAt = performance.now();
      const replaced = await store.replace(id, plant, condition);
      context.storeLatencyMs = roundMs(performance.now() - storeStartedAt);
      context.outcome = 'replaced' satisfies keyof typeof operation.outcomes;
      return revisedPlantResponse(replaced);
    });
}
