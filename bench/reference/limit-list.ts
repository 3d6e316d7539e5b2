import { pageLimits } from '../../functions/list-plants/list-query.ts';
import { answer, type Event, failure } from './limit-answers.ts';
import { type Item, plantJson } from './limit-plant.ts';
import { dynamoDb, refusal } from './limit-runtime.ts';

/**
 * LIMIT for GET /plants: the token, `limit` (within list-query.ts's `pageLimits`), an optional
 * cursor, one Scan with Limit, and the page as a JSON array (ids exact, from DynamoDB's number
 * text) with the next page's cursor in a Link header. The cursor is an HMAC under the table's name, then the last id,
 * in base64url, so a changed or foreign cursor is a 400 before any DynamoDB call.
 */
const { createHmac } = process.getBuiltinModule('node:crypto');
const tableName = process.env.PLANTS_TABLE_NAME ?? '';
const mac = (after: string, limit: number) =>
  createHmac('sha256', tableName).update(`${after}/${limit}`).digest('base64url').slice(0, 22);
const link = (after: string, limit: number) =>
  `${mac(after, limit)}${Buffer.from(after).toString('base64url')}`;

export const handler = async (event: Event) => {
  const refused = await refusal(event, 'plants/read');
  if (refused) return refused;
  const { limit: limitText = String(pageLimits.default), cursor } =
    event.queryStringParameters ?? {};
  const limit = /^[1-9]\d{0,2}$/.test(limitText) ? Number(limitText) : 0;
  if (!(limit >= 1 && limit <= pageLimits.max)) {
    return failure(400, `limit must be an integer from 1 to ${pageLimits.max}`);
  }
  const after = Buffer.from(cursor?.slice(22) ?? '', 'base64url').toString();
  if (cursor !== undefined && (!/^-?\d{1,19}$/.test(after) || cursor !== link(after, limit))) {
    return failure(400, 'cursor is not one this list issued for this limit');
  }
  const scan = await dynamoDb('Scan', {
    Limit: limit,
    ...(cursor === undefined ? {} : { ExclusiveStartKey: { id: { N: after } } }),
  });
  if (scan.status !== 200) throw new Error(`Scan answered ${scan.status}: ${scan.output.__type}`);
  const { Items = [], LastEvaluatedKey } = scan.output as {
    Items?: Item[];
    LastEvaluatedKey?: Item;
  };
  const last = LastEvaluatedKey?.id.N;
  const next = last && `</plants?limit=${limit}&cursor=${link(last, limit)}>; rel="next"`;
  return answer(200, `[${Items.map(plantJson).join(',')}]`, next ? { link: next } : undefined);
};
