import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

/** Headers every answer carries: it is about one caller, and it must not be sniffed. */
const baseHeaders = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
} as const;

export function jsonResponse(
  statusCode: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = {},
): APIGatewayProxyStructuredResultV2 {
  return {
    statusCode,
    headers: { 'content-type': 'application/json', ...baseHeaders, ...headers },
    body: JSON.stringify(body),
  };
}

/** No `Content-Type`: there is no content to describe (RFC 9110 15.3.5). */
export function noContentResponse(): APIGatewayProxyStructuredResultV2 {
  return { statusCode: 204, headers: { ...baseHeaders } };
}

/** The headers a 200 would have carried (RFC 9110 15.4.5). */

export function notModifiedResponse(
  headers: Readonly<Record<string, string>>,
): APIGatewayProxyStructuredResultV2 {
  return { statusCode: 304, headers: { ...baseHeaders, ...headers } };
}

export function errorResponse(
  status: number,
  message: string,
  headers: Readonly<Record<string, string>> = {},
): APIGatewayProxyStructuredResultV2 {
  return jsonResponse(status, { error: status, message }, headers);
}
