import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { asPlantId } from '../../functions/plants/plant-id.ts';

/** The LIMIT handlers' answers, in the contract's shape: `{error, message}` for every error. */
export type Event = APIGatewayProxyEventV2;

export const answer = (statusCode: number, body?: string, headers?: Record<string, string>) => ({
  statusCode,
  headers: { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers },
  ...(body === undefined ? {} : { body }),
});

export const failure = (status: number, message: string, headers?: Record<string, string>) =>
  answer(status, JSON.stringify({ error: status, message }), headers);

/** An answer without a body (204, 304), so without a Content-Type to describe one. */
export const bodiless = (statusCode: number, headers?: Record<string, string>) => {
  const { 'content-type': _none, ...rest } = answer(statusCode, undefined, headers).headers;
  return { statusCode, headers: rest };
};

export const badId = () => failure(400, 'id must be an integer from -2^63 to 2^63-1, as written');

/** An int64 as the contract writes one, by the product's own rule. */
export const isInt64 = (text: string) => asPlantId(text) !== undefined;
