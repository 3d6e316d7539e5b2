import { answer, type Event, failure, isInt64 } from './limit-answers.ts';
import { dynamoDb, refusal } from './limit-runtime.ts';

/**
 * LIMIT for POST /plants: the least a correct authenticated create can do with Node's built-ins
 * (docs/performance.md). The token first, then the body (JSON, the exact int64 id from its source
 * text, name and tag), then one conditional PutItem; a failed condition is an idempotent replay
 * when the stored plant is the same (DynamoDB returns it; dynalite needs a GetItem), else a 409.
 *
 * A sketch of create's rules, not a second home for them: the id is the product's own check
 * (`asPlantId`), but the sizes below restate `limits` of functions/plants/new-plant.ts, which
 * cannot be imported without its zod schema, and the text rules (plant-text.ts, NFC) are left
 * out. test/bench/limit.test.ts holds it to the shipped answers for the requests it sends.
 */
type Plant = { readonly name: string; readonly tag?: string };
const text = (value: unknown, max: number): value is string =>
  typeof value === 'string' && value.length > 0 && value.length <= max;

/** Node 24 hands a reviver each primitive's source text; TypeScript's lib predates it. */
type Reviver = (
  this: object,
  key: string,
  value: unknown,
  context?: { source?: string },
) => unknown;
const parse = JSON.parse as (text: string, reviver: Reviver) => unknown;

function newPlant(body: string): { id: string; plant: Plant } | string {
  const ids = new WeakMap<object, string | undefined>();
  let sent: unknown;
  try {
    sent = parse(body, function (key, value, context) {
      if (key === 'id') ids.set(this, context?.source);
      return value;
    });
  } catch {
    return 'the body is not valid JSON';
  }
  if (typeof sent !== 'object' || sent === null || Array.isArray(sent)) {
    return 'the body must be a JSON object';
  }
  const { name, tag } = sent as Record<string, unknown>;
  const id = ids.get(sent) ?? '';
  if (!isInt64(id)) return 'id must be an integer from -2^63 to 2^63-1';
  if (!text(name, 200)) return 'name must be a string of 1 to 200 characters';
  if (tag === undefined) return { id, plant: { name } };
  if (!text(tag, 64)) return 'tag must be a string of 1 to 64 characters';
  return { id, plant: { name, tag } };
}

export const handler = async (event: Event) => {
  const refused = await refusal(event, 'plants/write');
  if (refused) return refused;
  if (!/^application\/json\s*(;|$)/i.test(event.headers['content-type'] ?? '')) {
    return failure(415, 'Content-Type must be application/json');
  }
  const body = event.isBase64Encoded
    ? Buffer.from(event.body ?? '', 'base64').toString()
    : event.body;
  if ((body?.length ?? 0) > 16_384) return failure(413, 'the body is over 16 KiB');
  const parsed = newPlant(body ?? '');
  if (typeof parsed === 'string') return failure(400, parsed);
  const { id, plant } = parsed;
  const key = { id: { N: id } };
  const item = { ...key, name: { S: plant.name }, ...(plant.tag && { tag: { S: plant.tag } }) };
  const put = await dynamoDb('PutItem', {
    Item: item,
    ConditionExpression: 'attribute_not_exists(id)',
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
  });
  if (put.status === 200) return answer(200, JSON.stringify(plant));
  if (!String(put.output.__type).endsWith('#ConditionalCheckFailedException')) {
    throw new Error(`PutItem answered ${put.status}: ${put.output.__type}`);
  }
  type Stored = { name?: { S: string }; tag?: { S: string } } | undefined;
  const stored = (put.output.Item ??
    (await dynamoDb('GetItem', { Key: key, ConsistentRead: true })).output.Item) as Stored;
  return stored?.name?.S === plant.name && stored?.tag?.S === plant.tag
    ? answer(200, JSON.stringify(plant))
    : failure(409, `a different plant with id ${id} exists`);
};
