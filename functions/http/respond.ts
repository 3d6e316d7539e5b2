import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

/** Headers every answer carries: it is JSON, it is about one caller, and it must not be sniffed. */
const baseHeaders = {
  'content-type': 'application/json',
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
} as const;

export function jsonResponse(
  statusCode: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = {},
): APIGatewayProxyStructuredResultV2 {
  return { statusCode, headers: { ...baseHeaders, ...headers }, body: JSON.stringify(body) };
}

export function errorResponse(
  status: number,
  message: string,
  headers: Readonly<Record<string, string>> = {},
): APIGatewayProxyStructuredResultV2 {
  return jsonResponse(status, { error: status, message }, headers);
}
