// First, before any other module evaluates: opens the cold request's connections (see there).
import './connections/open-connections.ts';
import { createJwtVerifier } from './auth/token-verifier.ts';
import { createDynamoDbClient } from './connections/dynamodb-client.ts';
import { config, dynamoDbAgent, issuerAgent } from './connections/open-connections.ts';
import type { OperationDependencies } from './operation-edge.ts';
import { createDynamoDbPlantStore } from './plants/dynamodb-plant-store.ts';
import type { PlantStore } from './plants/plant-store.ts';

/**
 * An operation's Lambda entry point: its `makeHandler` given the DynamoDB store and the JWKS
 * cache, built once per container over the configuration and the connections
 * `open-connections.ts` opened, and the scope the function's `AUTH_SCOPE` names. A handler.ts
 * imports this module first, so those connections open before anything else evaluates.
 *
 * The key set is fetched on the first turn after init, over the connection already opened to the
 * issuer, and awaited by no one: the first request then finds it arrived or on its way. A slow or
 * failing issuer cannot fail or delay init; the first request fetches again if needed.
 */
export function lambdaHandler<Handler>(
  makeHandler: (dependencies: OperationDependencies<PlantStore>) => Handler,
): Handler {
  return makeHandler({
    store: createDynamoDbPlantStore(
      createDynamoDbClient({ ...config.dynamodb, agent: dynamoDbAgent }),
      config.tableName,
    ),
    verifyToken: createJwtVerifier(config.auth, { prefetchKeys: true, agent: issuerAgent }),
    requiredScope: config.auth.requiredScope,
    service: config.functionName,
  });
}
