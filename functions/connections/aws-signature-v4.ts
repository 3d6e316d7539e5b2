// The built-in itself, not its ESM facade (docs/decisions/0003-built-ins-without-esm-facades.md).
const { createHash, createHmac } = process.getBuiltinModule('node:crypto');

export type AwsCredentials = {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string | undefined;
};

export type SignableRequest = {
  readonly method: string;
  readonly url: URL;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
};

const sha256Hex = (data: string) => createHash('sha256').update(data, 'utf8').digest('hex');
const hmac = (key: Buffer | string, data: string) =>
  createHmac('sha256', key).update(data, 'utf8').digest();

/**
 * SigV4 for a body held in memory (docs/decisions/0117-sigv4-signed-with-node-crypto.md); every
 * header returned is signed. The tests cross-check it against @smithy/signature-v4.
 */
export function signRequest(
  request: SignableRequest,
  credentials: AwsCredentials,
  scope: { readonly region: string; readonly service: string },
  now: Date = new Date(),
): Record<string, string> {
  const amzDate = now.toISOString().replace(/[:-]|\.\d{3}/g, '');
  const day = amzDate.slice(0, 8);
  const headers: Record<string, string> = {
    ...lowerCaseKeys(request.headers),
    'content-length': String(Buffer.byteLength(request.body)),
    host: request.url.host,
    'x-amz-date': amzDate,
  };
  if (credentials.sessionToken) headers['x-amz-security-token'] = credentials.sessionToken;

  const names = Object.keys(headers).sort();
  const signedHeaders = names.join(';');
  const canonicalRequest = [
    request.method,
    canonicalPath(request.url),
    canonicalQuery(request.url),
    ...names.map((name) => `${name}:${canonicalValue(String(headers[name]))}`),
    '',
    signedHeaders,
    sha256Hex(request.body),
  ].join('\n');
  const credentialScope = `${day}/${scope.region}/${scope.service}/aws4_request`;
  const stringToSign = [
    'AWS4-HMAC-SHA256',
    amzDate,
    credentialScope,
    sha256Hex(canonicalRequest),
  ].join('\n');
  const signingKey = signingKeyFor(credentials.secretAccessKey, day, scope);
  const signature = createHmac('sha256', signingKey).update(stringToSign, 'utf8').digest('hex');
  headers.authorization = `AWS4-HMAC-SHA256 Credential=${credentials.accessKeyId}/${credentialScope}, SignedHeaders=${signedHeaders}, Signature=${signature}`;
  return headers;
}

/** Derived once a day, not per request, as the AWS SDK caches it. */
let lastSigningKey: { readonly id: string; readonly key: Buffer } | undefined;

function signingKeyFor(
  secretAccessKey: string,
  day: string,
  scope: { readonly region: string; readonly service: string },
): Buffer {
  const id = `${day}/${scope.region}/${scope.service}/${secretAccessKey}`;
  if (lastSigningKey?.id !== id) {
    const key = [day, scope.region, scope.service, 'aws4_request'].reduce<Buffer | string>(
      hmac,
      `AWS4${secretAccessKey}`,
    ) as Buffer;
    lastSigningKey = { id, key };
  }
  return lastSigningKey.key;
}

/** As the AWS SDK signs it: other whitespace (U+00A0, a BOM) is part of the value. */

const canonicalValue = (value: string) =>
  value
    .replace(/[\r\n]/g, ' ')
    .replace(/[ \t]+/g, ' ')
    .replace(/^ | $/g, '');

/** RFC 3986's unreserved characters stay; everything else is percent-encoded, as SigV4 asks. */
const uriEscape = (text: string) =>
  encodeURIComponent(text).replace(
    /[!'()*]/g,
    (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`,
  );

/** The path without empty segments, encoded once more (every service but S3 signs it so). */
function canonicalPath(url: URL): string {
  const segments = url.pathname.split('/').filter(Boolean);
  const trailing = segments.length > 0 && url.pathname.endsWith('/') ? '/' : '';
  return uriEscape(`/${segments.join('/')}${trailing}`).replace(/%2F/g, '/');
}

/** The query's parameters encoded and sorted by name, then by value. */
function canonicalQuery(url: URL): string {
  const byName = new Map<string, string[]>();
  for (const [name, value] of url.searchParams) {
    const values = byName.get(uriEscape(name)) ?? [];
    values.push(`${uriEscape(name)}=${uriEscape(value)}`);
    byName.set(uriEscape(name), values);
  }
  return [...byName.keys()]
    .sort()
    .flatMap((name) => (byName.get(name) ?? []).sort())
    .join('&');
}

function lowerCaseKeys(headers: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]),
  );
}
