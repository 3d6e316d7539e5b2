import {
  type DynamoDbClient,
  DynamoDbServiceError,
  DynamoDbUnavailableError,
} from '../connections/dynamodb-client.ts';
import { listCursors } from './list-cursor.ts';
import { type NewPlant, type Plant, plantOf } from './plant.ts';
import {
  PlantChangedError,
  PlantConflictError,
  PlantNotFoundError,
  StoreUnavailableError,
} from './plant-errors.ts';
import { asPlantId, type PlantId } from './plant-id.ts';
import { newRevision, type ReplaceCondition, type Revision, unrevised } from './plant-revision.ts';
import {
  type DamagedItem,
  isReplay,
  maxListLimit,
  type PlantStore,
  type StoredPlant,
} from './plant-store.ts';

type AttributeMap = Record<string, { S?: string; N?: string } | undefined>;

/**
 * One call per operation, each atomic per item: of racing creates, or writers with the same
 * If-Match, exactly one wins; a failed condition's ALL_OLD item tells replay, conflict or change.
 */
export function createDynamoDbPlantStore(dynamodb: DynamoDbClient, tableName: string): PlantStore {
  const cursors = listCursors(tableName);
  // Only unavailability has a meaning for the caller; anything else is a fault of ours.
  const client: DynamoDbClient = (operation, input) =>
    dynamodb(operation, input).catch((error: unknown) => {
      throw error instanceof DynamoDbUnavailableError ? new StoreUnavailableError(error) : error;
    });

  return {
    async create(plant) {
      try {
        await client('PutItem', {
          TableName: tableName,
          Item: toItem(plant, newRevision()),
          ConditionExpression: 'attribute_not_exists(id)',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        });
        return { plant: plantOf(plant), outcome: 'created' };
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
        const stored = error.payload.Item as AttributeMap | undefined;
        // The condition failed yet returned nothing stored: an answer we cannot trust, and a
        // retry can only write or replay, so the caller is told to retry rather than given a 500.
        if (stored === undefined) throw new StoreUnavailableError(error);
        const storedPlant = fromItem(stored);
        if (!isReplay(storedPlant, plant)) throw new PlantConflictError(plant.id);
        return { plant: storedPlant, outcome: 'replayed' };
      }
    },

    /**
     * One Scan per page, for one plant more than the page, so the last page needs no empty one
     * after it; a short Scan (1 MB) ends a short page. Hash order is stable under creates and
     * deletes. A page ends on a plant, never a damaged key; only a Scan of nothing but damaged
     * items is followed by another, of the largest page.
     */
    async list({ limit, cursor }) {
      if (!Number.isInteger(limit) || limit < 1 || limit > maxListLimit) {
        throw new RangeError(`limit must be an integer from 1 to ${maxListLimit}, not ${limit}`);
      }
      let start: string | undefined =
        cursor === undefined ? undefined : cursors.decode(cursor, limit).after;
      let scanLimit = limit + 1;
      const damaged: DamagedItem[] = [];
      for (;;) {
        const { Items = [], LastEvaluatedKey } = await client('Scan', {
          TableName: tableName,
          Limit: scanLimit,
          ConsistentRead: true,
          ...(start === undefined ? {} : { ExclusiveStartKey: { id: { N: start } } }),
        });
        const read: StoredPlant[] = [];
        for (const item of Items as AttributeMap[]) {
          const listed = listedPlantOf(item);
          if ('problem' in listed) damaged.push(listed);
          else read.push(listed);
        }
        const lastKey = (LastEvaluatedKey as AttributeMap | undefined)?.id?.N;
        if (read.length === 0 && lastKey !== undefined) {
          start = lastKey;
          scanLimit = maxListLimit + 1;
          continue;
        }
        const plants = read.slice(0, limit);
        const nextAfter =
          read.length > limit || lastKey !== undefined ? plants.at(-1)?.id : undefined;
        return {
          plants,
          ...(nextAfter === undefined ? {} : { next: cursors.encode({ after: nextAfter, limit }) }),
          ...(damaged.length === 0 ? {} : { damaged }),
        };
      }
    },

    /** The old item tells whether this call removed it; a condition is a replace's. */
    async delete(id, condition) {
      const { Attributes } = await client('DeleteItem', {
        TableName: tableName,
        Key: { id: { N: id } },
        ReturnValues: 'ALL_OLD',
        ...(condition === undefined ? {} : conditionParameters(condition)),
      }).catch(refusedCondition(id));
      return { deleted: Attributes !== undefined };
    },

    async get(id) {
      const { Item } = await client('GetItem', {
        TableName: tableName,
        Key: { id: { N: id } },
        ConsistentRead: true,
      });
      if (Item === undefined) return undefined;
      const item = Item as AttributeMap;
      return { id, ...fromItem(item), revision: (item.rev?.S ?? unrevised) as Revision };
    },

    async replace(id, plant, condition) {
      const revision = newRevision();
      await client('PutItem', {
        TableName: tableName,
        Item: toItem({ ...plant, id }, revision),
        ...conditionParameters(condition),
      }).catch(refusedCondition(id));
      return { id, ...plantOf(plant), revision };
    },
  };
}

/** A plant stored before revisions existed has no `rev`, and is `unrevised`. */
function conditionParameters(condition: ReplaceCondition): Record<string, unknown> {
  const returnOld = { ReturnValuesOnConditionCheckFailure: 'ALL_OLD' };
  if (condition.kind === 'any')
    return { ConditionExpression: 'attribute_exists(id)', ...returnOld };
  const revisions = [...new Set(condition.revisions)];
  const listed = revisions.filter((revision) => revision !== unrevised);
  const alternatives = listed.map((_, index) => `#rev = :rev${index}`);
  const values: AttributeMap = Object.fromEntries(
    listed.map((revision, index) => [`:rev${index}`, { S: revision }]),
  );
  if (revisions.includes(unrevised)) alternatives.push('attribute_not_exists(#rev)');
  // No revision at all (only weak tags): a condition no plant meets, so that the answer still
  // tells an absent plant from a changed one.
  if (alternatives.length === 0) {
    alternatives.push('#rev = :none');
    values[':none'] = { S: '' };
  }
  return {
    ConditionExpression: `attribute_exists(id) AND (${alternatives.join(' OR ')})`,
    ExpressionAttributeNames: { '#rev': 'rev' },
    ...(Object.keys(values).length === 0 ? {} : { ExpressionAttributeValues: values }),
    ...returnOld,
  };
}

function isConditionFailure(error: unknown): error is DynamoDbServiceError {
  return error instanceof DynamoDbServiceError && error.type === 'ConditionalCheckFailedException';
}

/** No old item: no plant has the id; one: its revision did not meet the condition. */
function refusedCondition(id: PlantId): (error: unknown) => never {
  return (error) => {
    if (!isConditionFailure(error)) throw error;
    throw error.payload.Item === undefined ? new PlantNotFoundError(id) : new PlantChangedError(id);
  };
}

function toItem(plant: NewPlant, revision: Revision): AttributeMap {
  const item: AttributeMap = { id: { N: plant.id }, name: { S: plant.name }, rev: { S: revision } };
  if (plant.tag !== undefined) item.tag = { S: plant.tag };
  return item;
}

function fromItem(item: AttributeMap): Plant {
  return plantOf({ name: item.name?.S ?? '', tag: item.tag?.S });
}

/** The rest of the rules are the create's, whose schema a list does not load. */

function listedPlantOf(item: AttributeMap): StoredPlant | DamagedItem {
  const key = item.id?.N ?? JSON.stringify(item.id ?? null);
  const id = asPlantId(item.id?.N ?? '');
  if (id === undefined) return { key, problem: 'its key is not an int64 in canonical form' };
  const name = item.name?.S;
  if (name === undefined || name === '') return { key, problem: 'it has no name as text' };
  const tag = item.tag === undefined ? undefined : item.tag.S;
  if (item.tag !== undefined && (tag === undefined || tag === '')) {
    return { key, problem: 'its tag is not text' };
  }
  return { id, ...plantOf({ name, tag }) };
}
