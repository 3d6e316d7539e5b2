import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { HttpError } from '../http/http-error.ts';
import type { ListRequest } from '../plants/plant-store.ts';

/**
 * A page's size when the caller names none, and the most it may name: small enough that a page
 * is one quick Scan and a small answer, well inside what the store reads at once.
 */
export const pageLimits = { default: 20, max: 100 } as const;

/** Digits only, no leading zero, at most three: the form `limit` takes, before its range. */
const limitText = /^[1-9]\d{0,2}$/;

/**
 * The query of GET /plants -> the page it asks for, or a 400 naming the parameter. Strict, as the
 * path's id is: `limit` is one integer from 1 to the maximum in plain decimal, so `0`, `-1`,
 * `1.5`, `abc`, `2147483648` and `limit=` are refused rather than read as some other page size.
 * API Gateway joins a repeated parameter's values with commas, and neither parameter can hold a
 * comma, so a comma means the parameter was given twice, which is refused as ambiguous. `cursor`
 * is handed to the store as it came, which refuses one it did not issue for this limit. Other
 * parameters are ignored, as unknown body fields are.
 */
export function parseListQuery(
  parameters: APIGatewayProxyEventV2['queryStringParameters'],
): ListRequest {
  const limit = once(parameters, 'limit');
  const cursor = once(parameters, 'cursor');
  if (limit === undefined) return { limit: pageLimits.default, cursor };
  const value = limitText.test(limit) ? Number(limit) : Number.NaN;
  if (!(value <= pageLimits.max)) {
    throw new HttpError(400, `limit must be an integer from 1 to ${pageLimits.max}`);
  }
  return { limit: value, cursor };
}

function once(
  parameters: APIGatewayProxyEventV2['queryStringParameters'],
  name: string,
): string | undefined {
  const value = parameters?.[name];
  if (value?.includes(',')) throw new HttpError(400, `${name} must be given at most once`);
  return value;
}
