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

/**
 * 204: the base headers and no body. No `Content-Type` either: there is no content for it to
 * describe (RFC 9110 15.3.5), and a client reading one would look for a JSON body that is not there.
 */
export function noContentResponse(): APIGatewayProxyStructuredResultV2 {
  return { statusCode: 204, headers: { ...baseHeaders } };
}

/**
 * 304: the validator and caching headers a 200 would have carried (RFC 9110 15.4.5), no body and
 * no Content-Type.
 */
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
