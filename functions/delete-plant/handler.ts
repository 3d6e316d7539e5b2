// First, before any other module evaluates: opens the cold request's connections (see there).
import '../connections/open-connections.ts';
import { createJwtVerifier } from '../auth/token-verifier.ts';
import { createDynamoDbClient } from '../connections/dynamodb-client.ts';
import { config, dynamoDbAgent, issuerAgent } from '../connections/open-connections.ts';
import { createDynamoDbPlantStore } from '../plants/dynamodb-plant-store.ts';
import { makeHandler } from './delete-plant.ts';

/**
 * The Lambda entry point, wired as `create-plant/handler.ts` is (see there): the store and the
 * key set built once per container over the connections `open-connections.ts` opened, the key set
 * fetched on the first turn after init, and the scope this function's `AUTH_SCOPE` names.
 */
export const handler = makeHandler({
  store: createDynamoDbPlantStore(
    createDynamoDbClient({ ...config.dynamodb, agent: dynamoDbAgent }),
    config.tableName,
  ),
  verifyToken: createJwtVerifier(config.auth, { prefetchKeys: true, agent: issuerAgent }),
  requiredScope: config.auth.requiredScope,
  service: config.functionName,
});
