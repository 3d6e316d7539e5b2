import { createJwtVerifier } from '../auth/token-verifier.ts';
import { createDynamoDbClient } from '../aws/dynamodb-client.ts';
import { loadConfig } from '../config.ts';
import { createDynamoDbPlantStore } from '../plants/dynamodb-plant-store.ts';
import { makeHandler } from './create-plant.ts';

/**
 * The Lambda entry point. Configuration, the DynamoDB client (with its keep-alive agent) and the
 * JWKS cache are built once per container, here, and reused by every invocation.
 *
 * Init starts both network set-ups of a cold request at once and awaits neither: the JWKS fetch
 * and the DynamoDB connection (TCP + TLS). The first request then finds them done or under way
 * instead of paying one after the other (`npm run bench`, cold request). A slow or failing issuer
 * or store cannot fail or delay init; the first request fetches or connects again if needed.
 */
const config = loadConfig(process.env);

// The key set first: it is on the first request's critical path (three round trips, then the
// verdict), while the DynamoDB connection has a round trip to spare.
const verifyToken = createJwtVerifier(config.auth, { prefetchKeys: true });

export const handler = makeHandler({
  store: createDynamoDbPlantStore(
    createDynamoDbClient({ ...config.dynamodb, preconnect: true }),
    config.tableName,
  ),
  verifyToken,
  requiredScope: config.auth.requiredScope,
  service: config.functionName,
});
