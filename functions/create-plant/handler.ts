// First, before any other module evaluates: opens the cold request's connections (see there).
import '../connections/open-connections.ts';
import { createJwtVerifier } from '../auth/token-verifier.ts';
import { createDynamoDbClient } from '../connections/dynamodb-client.ts';
import { config, dynamoDbAgent, issuerAgent } from '../connections/open-connections.ts';
import { createDynamoDbPlantStore } from '../plants/dynamodb-plant-store.ts';
import { makeHandler } from './create-plant.ts';

/**
 * The Lambda entry point. The DynamoDB client and the JWKS cache are built once per container,
 * here, over the configuration and the connections `open-connections.ts` opened, and reused by
 * every invocation.
 *
 * The key set is fetched on the first turn after init, over the connection already opened to the
 * issuer, and awaited by no one: the first request then finds it arrived or on its way. A slow or
 * failing issuer cannot fail or delay init; the first request fetches again if needed.
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
