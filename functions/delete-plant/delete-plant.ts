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
import { noContentResponse } from '../http/respond.ts';
import { jsonLogger, type Logger } from '../log.ts';
import { parsePlantId } from '../plants/plant-id.ts';
import type { PlantStore } from '../plants/plant-store.ts';
import { type DeleteOutcome, deletePlantOutcomes } from './outcomes.ts';

export type DeletePlantDependencies = {
  readonly store: Pick<PlantStore, 'delete'>;
  readonly verifyToken: TokenVerifier;
  readonly requiredScope: string;
  /** The `Service` dimension of the request metrics. @default 'plant-store' */
  readonly service?: string;
  /** @default jsonLogger */
  readonly log?: Logger;
};

/**
 * DELETE /plants/{id}, in the order a request meets it:
 * edge (log, map errors) -> authorize -> parse the path's id -> store (one delete) -> respond.
 *
 * The answer is 204 whether or not the id held a plant (docs/decisions/0081-delete-absent-is-204.md):
 * either way the plant is gone, and a retried delete whose first answer was lost is told so
 * rather than told 404. The request log names which it was.
 */
export function makeHandler({
  store,
  verifyToken,
  requiredScope,
  service = 'plant-store',
  log = jsonLogger,
}: DeletePlantDependencies) {
  return middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Error, Context>()
    .use(accessLog(log, service, deletePlantOutcomes))
    .use(mapErrors(log, errorAnswers))
    .use(authorizeRequest(verifyToken, requiredScope))
    .handler(async (event, context) => {
      // API Gateway fills `id` from the route's `{id}`; a missing one is refused like an empty one.
      const id = parsePlantId(event.pathParameters?.id ?? '');
      const storeStartedAt = performance.now();
      const { deleted } = await store.delete(id);
      context.storeLatencyMs = roundMs(performance.now() - storeStartedAt);
      context.outcome = (deleted ? 'deleted' : 'absent') satisfies DeleteOutcome;
      return noContentResponse();
    });
}
