import middy from '@middy/core';
import type {
  APIGatewayProxyEventV2,
  APIGatewayProxyStructuredResultV2,
  Context,
} from 'aws-lambda';
import { authorizeRequest } from '../auth/authorize-request.ts';
import type { TokenVerifier } from '../auth/token-verifier.ts';
import { errorAnswers } from '../failures.ts';
import { accessLog, roundMs } from '../http/access-log.ts';
import { mapErrors } from '../http/error-response.ts';
import { parseJsonBody } from '../http/parse-json-body.ts';
import { requireJsonBody } from '../http/require-json-body.ts';
import { jsonResponse } from '../http/respond.ts';
import { jsonLogger, type Logger } from '../log.ts';
import { limits, parseNewPlant } from '../plants/new-plant.ts';
import { type Plant, plantOf } from '../plants/plant.ts';
import type { PlantStore } from '../plants/plant-store.ts';
import { createPlantOutcomes } from './outcomes.ts';

export type CreatePlantDependencies = {
  readonly store: PlantStore;
  readonly verifyToken: TokenVerifier;
  readonly requiredScope: string;
  /** The `Service` dimension of the request metrics. @default 'plant-store' */
  readonly service?: string;
  /** @default jsonLogger */
  readonly log?: Logger;
};

/**
 * POST /plants, in the order a request meets it:
 * edge (log, map errors) -> authorize -> require a JSON body -> parse -> validate -> store -> respond.
 */
export function makeHandler({
  store,
  verifyToken,
  requiredScope,
  service = 'plant-store',
  log = jsonLogger,
}: CreatePlantDependencies) {
  return middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Error, Context>()
    .use(accessLog(log, service, createPlantOutcomes))
    .use(mapErrors(log, errorAnswers))
    .use(authorizeRequest(verifyToken, requiredScope))
    .use(requireJsonBody(limits.bodyMaxBytes))
    .use(parseJsonBody())
    .handler(async (event, context) => {
      // The body parser has replaced the text with its value; the text itself is in rawBody.
      const newPlant = parseNewPlant(event.body, context.rawBody ?? '');
      const storeStartedAt = performance.now();
      const { plant, outcome } = await store.create(newPlant);
      context.storeLatencyMs = roundMs(performance.now() - storeStartedAt);
      context.outcome = outcome;
      return plantResponse(plant);
    });
}

/** The 200 body is a Plant: `name` and `tag` when there is one, never `id`. */
export function plantResponse(plant: Plant): APIGatewayProxyStructuredResultV2 {
  return jsonResponse(200, plantOf(plant));
}
