import { checkPlant } from '../checks/check.ts';
import type { CheckFixture } from '../checks/runner.ts';
import { awsAccess, type Env, envNames, serviceEndpoint } from '../config.ts';
import { createDynamoDbClient } from '../connections/dynamodb-client.ts';
import { strongEntityTag } from '../http/entity-tags.ts';
import { createDynamoDbPlantStore } from '../plants/dynamodb-plant-store.ts';
import { parsePlantId } from '../plants/plant-id.ts';

/** Through the product's own store adapter, so the hook invokes no function but the version. */

export function tableFixture(env: Env, tableName: string): CheckFixture {
  const { region, credentials } = awsAccess(env);
  const endpoint = serviceEndpoint(env, envNames.dynamodbEndpoint, 'dynamodb', region);
  const client = createDynamoDbClient({ endpoint, region, credentials });
  const store = createDynamoDbPlantStore(client, tableName);
  return {
    async create(id) {
      const plantId = parsePlantId(id);
      await store.create({ id: plantId, ...checkPlant });
      const stored = await store.get(plantId);
      if (stored === undefined) throw new Error(`the check plant ${id} was stored, then not found`);
      return strongEntityTag(stored.revision);
    },
    async delete(id) {
      await store.delete(parsePlantId(id));
    },
  };
}
