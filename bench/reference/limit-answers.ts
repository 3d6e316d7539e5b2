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

/**
 * An int64 as the contract writes one: no sign on 0, no leading zero, no fraction or exponent.
 * The product's own rule (`asPlantId`), not a copy of it.
 */
export const isInt64 = (text: string) => asPlantId(text) !== undefined;
