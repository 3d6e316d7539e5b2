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
 * Plants in one DynamoDB table keyed by `id` (Number). A create is one conditional PutItem, so
 * two racing creates of one id cannot both win; the loser compares the item its failed condition
 * returns (ALL_OLD) to tell an idempotent replay from a conflict. A list page is one consistent
 * Scan; a delete is one DeleteItem, atomic per item, so a create racing it either lands whole
 * before it (and is removed whole) or after it (and stays whole). A read is one consistent
 * GetItem. A replace is one PutItem conditioned on the plant existing and, when asked, on its
 * revision, so of writers racing with the same If-Match exactly one wins, with no read before the
 * write; a conditional delete is conditioned the same way.
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
     * One Scan per page, asking for one plant more than the page holds: when that one exists the
     * page ends on a `next` cursor after its last plant, and when it does not, the walk ends here
     * rather than on an extra empty page. The Scan's position is the key's place in the table's
     * hash order, which no other plant's create or delete moves, so a walk meets every plant
     * present throughout it exactly once. A Scan that stops short of the limit (DynamoDB stops
     * at 1 MB read) ends a short page on its last plant; the page is not filled by a second
     * Scan, so that each page costs one call.
     *
     * A damaged item (`DamagedItem`) is left out of the page and reported beside it. A cursor
     * holds an int64, so a page ends on its last plant, never on a damaged key: the next page
     * reads any damaged items after it again. Only a Scan that met nothing but damaged items,
     * with more of the table after it, is followed by another: from the last key it read (a
     * Scan starts after any number), of the largest page, so that a run of damaged items costs
     * few calls. Either way the walk moves on.
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

    /**
     * Without a condition, unconditional, so deleting an absent id succeeds as DynamoDB's
     * DeleteItem does; the old item, returned only when there was one, tells the caller whether
     * this call removed it. With one, conditioned as a replace is, and a failed condition told
     * apart by the old item it returns (ALL_OLD), as a replace's is: still one call.
     */
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

    /** No read is made, before or after: a failed condition tells what it met. */
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

/**
 * A replace's or a conditional delete's parameters for `condition`: the plant exists and, when a
 * list of revisions is asked for, holds one of them, asking for the old item when it fails. A
 * plant stored before revisions existed has no `rev`, and is `unrevised`.
 */
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

/**
 * A replace's or a conditional delete's failed condition, told apart by the old item it returns
 * (ALL_OLD): none means no plant has the id, one that its revision did not meet the condition.
 */
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

/**
 * A listed item as the plant it holds, or what makes it no plant the API would have written: its
 * key is not an int64 in canonical form (no path could name it), it has no name, or a tag that is
 * not text. The rest of the rules (lengths, characters) are the create's, whose schema a list
 * does not load; the API only ever stores text that passed them.
 */
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
