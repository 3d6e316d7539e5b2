import type { APIGatewayProxyEventV2 } from 'aws-lambda';

/** The LIMIT handlers' answers, in the contract's shape: `{error, message}` for every error. */
export type Event = APIGatewayProxyEventV2;

export const answer = (statusCode: number, body?: string, headers?: Record<string, string>) => ({
  statusCode,
  headers: { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers },
  ...(body === undefined ? {} : { body }),
});

export const failure = (status: number, message: string, headers?: Record<string, string>) =>
  answer(status, JSON.stringify({ error: status, message }), headers);

/** An int64 as the contract writes one: no sign on 0, no leading zero, no fraction or exponent. */
export const isInt64 = (text: string) =>
  /^(0|-?[1-9]\d{0,18})$/.test(text) && BigInt.asIntN(64, BigInt(text)) === BigInt(text);
