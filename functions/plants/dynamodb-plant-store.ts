import {
  type DynamoDbClient,
  DynamoDbServiceError,
  DynamoDbUnavailableError,
} from '../connections/dynamodb-client.ts';
import { type NewPlant, type Plant, plantOf } from './new-plant.ts';
import {
  isReplay,
  PlantConflictError,
  type PlantStore,
  StoreUnavailableError,
} from './plant-store.ts';

type AttributeMap = Record<string, { S?: string; N?: string } | undefined>;

/**
 * Plants in one DynamoDB table keyed by `id` (Number). A create is one conditional PutItem, so
 * two racing creates of one id cannot both win; the loser compares what is stored to tell an
 * idempotent replay from a conflict.
 */
export function createDynamoDbPlantStore(client: DynamoDbClient, tableName: string): PlantStore {
  const readStored = async (id: string): Promise<AttributeMap | undefined> => {
    const { Item } = await client('GetItem', {
      TableName: tableName,
      Key: { id: { N: id } },
      ConsistentRead: true,
    });
    return Item as AttributeMap | undefined;
  };

  return {
    async create(plant) {
      try {
        await client('PutItem', {
          TableName: tableName,
          Item: toItem(plant),
          ConditionExpression: 'attribute_not_exists(id)',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        });
        return { plant: plantOf(plant), outcome: 'created' };
      } catch (error) {
        if (!isConditionFailure(error)) throw translate(error);
        // DynamoDB returns the old item; dynalite does not, so read it back consistently.
        const stored =
          (error.payload.Item as AttributeMap | undefined) ??
          (await readStored(plant.id).catch((readError: unknown) => {
            throw translate(readError);
          }));
        // The condition failed yet nothing is stored: an answer we cannot trust, and a retry can
        // only write or replay, so the caller is told to retry rather than given a 500.
        if (stored === undefined) throw new StoreUnavailableError(error);
        const storedPlant = fromItem(stored);
        if (!isReplay(storedPlant, plant)) throw new PlantConflictError(plant.id);
        return { plant: storedPlant, outcome: 'replayed' };
      }
    },
  };
}

function isConditionFailure(error: unknown): error is DynamoDbServiceError {
  return error instanceof DynamoDbServiceError && error.type === 'ConditionalCheckFailedException';
}

/** Only unavailability has a meaning for the caller; anything else is a fault of ours. */
function translate(error: unknown): unknown {
  return error instanceof DynamoDbUnavailableError ? new StoreUnavailableError(error) : error;
}

function toItem(plant: NewPlant): AttributeMap {
  const item: AttributeMap = { id: { N: plant.id }, name: { S: plant.name } };
  if (plant.tag !== undefined) item.tag = { S: plant.tag };
  return item;
}

function fromItem(item: AttributeMap): Plant {
  return plantOf({ name: item.name?.S ?? '', tag: item.tag?.S });
}
