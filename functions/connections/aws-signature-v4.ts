import aws4 from 'aws4';

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

/**
 * AWS Signature Version 4 for one request, by `aws4` (docs/decisions/0020-sigv4-signer.md), which
 * derives the signing key once per secret, day, region and service, as the AWS SDK does. Returns
 * the headers to send, named in lower case: the given ones plus host, content-length, x-amz-date,
 * the session token and authorization. Cross-checked against @smithy/signature-v4 in the tests.
 */
export function signRequest(
  request: SignableRequest,
  credentials: AwsCredentials,
  scope: { readonly region: string; readonly service: string },
  now: Date = new Date(),
): Record<string, string> {
  const signed = aws4.sign(
    {
      method: request.method,
      host: request.url.host,
      path: `${request.url.pathname}${request.url.search}`,
      service: scope.service,
      region: scope.region,
      // aws4 signs at the time this header names, or now when it is absent.
      headers: { ...request.headers, 'X-Amz-Date': now.toISOString().replace(/[:-]|\.\d{3}/g, '') },
      body: request.body,
    },
    credentials,
  );
  return Object.fromEntries(
    Object.entries(signed.headers ?? {}).map(([name, value]) => [
      name.toLowerCase(),
      String(value),
    ]),
  );
}
