import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { roundMs } from '../http/access-log.ts';
import { parseJsonBody } from '../http/parse-json-body.ts';
import { requireJsonBody } from '../http/require-json-body.ts';
import { jsonResponse } from '../http/respond.ts';
import { authorizedEdge, type OperationDependencies } from '../operation-edge.ts';
import { limits, parseNewPlant } from '../plants/new-plant.ts';
import { type Plant, plantOf } from '../plants/plant.ts';
import type { PlantStore } from '../plants/plant-store.ts';
import { operation } from './operation.ts';

export type CreatePlantDependencies = OperationDependencies<Pick<PlantStore, 'create'>>;

/** POST /plants: a JSON body, parsed, validated, created in one conditional write or replayed. */
export function makeHandler({ store, ...edge }: CreatePlantDependencies) {
  return authorizedEdge(operation, edge)
    .use(requireJsonBody(limits.bodyMaxBytes))
    .use(parseJsonBody())
    .handler(async (event, context) => {
      // The body parser has replaced the text with its value; the text itself is in rawBody.
      const newPlant = parseNewPlant(event.body, context.rawBody ?? '');
      const storeStartedAt = performance.now();
      const { plant, outcome } = await store.create(newPlant);
      context.storeLatencyMs = roundMs(performance.now() - storeStartedAt);
      context.outcome = outcome satisfies keyof typeof operation.outcomes;
      return plantResponse(plant);
    });
}

/** The 200 body is a Plant: `name` and `tag` when there is one, never `id`. */
export function plantResponse(plant: Plant): APIGatewayProxyStructuredResultV2 {
  return jsonResponse(200, plantOf(plant));
}
