import { createJwtVerifier } from './auth/token-verifier.ts';
import { loadConfig } from './config.ts';
import { makeHandler } from './create-plant.ts';
import { createDynamoDbClient } from './store/dynamodb-client.ts';
import { createDynamoDbPlantStore } from './store/dynamodb-plant-store.ts';

/**
 * The Lambda entry point. Configuration, the DynamoDB client (with its keep-alive agent) and the
 * JWKS cache are built once per container, here, and reused by every invocation.
 */
const config = loadConfig(process.env);

export const handler = makeHandler({
  store: createDynamoDbPlantStore(createDynamoDbClient(config.dynamodb), config.tableName),
  verifyToken: createJwtVerifier(config.auth),
  requiredScope: config.auth.requiredScope,
  service: config.functionName,
});
