// The built-in itself, not its ESM facade (docs/decisions/0003-built-ins-without-esm-facades.md).
const { createHash, createHmac } = process.getBuiltinModule('node:crypto');

export type Credentials = {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string | undefined;
};

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** SigV4 headers for one DynamoDB call, all signed; written sorted, so the signed list is their order. */
export function signedDynamoDbHeaders(
  url: URL,
  action: string,
  body: string,
  credentials: Credentials,
  region: string,
  now: Date,
): Record<string, string> {
  const amzDate = now.toISOString().replace(/[-:]|\.\d+/g, '');
  const day = amzDate.slice(0, 8);
  const headers: Record<string, string> = {
    'content-length': String(Buffer.byteLength(body)),
    'content-type': 'application/x-amz-json-1.0',
    host: url.host,
    'x-amz-date': amzDate,
    ...(credentials.sessionToken ? { 'x-amz-security-token': credentials.sessionToken } : {}),
    'x-amz-target': `DynamoDB_20120810.${action}`,
  };
  const names = Object.keys(headers).join(';');
  const lines = Object.entries(headers).map(([name, value]) => `${name}:${value}\n`);
  const request = `POST\n${url.pathname}\n\n${lines.join('')}\n${names}\n${sha256(body)}`;
  const scope = `${day}/${region}/dynamodb/aws4_request`;
  const key = [day, region, 'dynamodb', 'aws4_request'].reduce(
    (secret: Buffer, part) => createHmac('sha256', secret).update(part).digest(),
    Buffer.from(`AWS4${credentials.secretAccessKey}`),
  );
  const signature = createHmac('sha256', key)
    .update(`AWS4-HMAC-SHA256\n${amzDate}\n${scope}\n${sha256(request)}`)
    .digest('hex');
  return {
    ...headers,
    authorization: `AWS4-HMAC-SHA256 Credential=${credentials.accessKeyId}/${scope}, SignedHeaders=${names}, Signature=${signature}`,
  };
}
