import { Hash } from '@smithy/hash-node';
import { SignatureV4 } from '@smithy/signature-v4';
import { describe, expect, it } from 'vitest';
import { signRequest } from '../../../functions/connections/aws-signature-v4.ts';

const credentials = {
  accessKeyId: 'AKIDEXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
};

type Credentials = { accessKeyId: string; secretAccessKey: string; sessionToken?: string };

/**
 * The AWS SDK's own signer, the reference ours must agree with byte for byte, on the request as it
 * is sent: with its Content-Length, which ours signs too.
 */
async function referenceHeaders(url: URL, body: string, creds: Credentials, now: Date) {
  const signer = new SignatureV4({
    credentials: creds,
    region: 'eu-west-1',
    service: 'dynamodb',
    sha256: Hash.bind(null, 'sha256'),
    applyChecksum: false,
  });
  const signed = await signer.sign(
    {
      method: 'POST',
      protocol: url.protocol,
      hostname: url.hostname,
      port: url.port ? Number(url.port) : undefined,
      path: url.pathname,
      query: Object.fromEntries(
        [...new Set(url.searchParams.keys())].map((name) => {
          const values = url.searchParams.getAll(name);
          return [name, values.length === 1 ? (values[0] ?? '') : values];
        }),
      ),
      headers: {
        host: url.host,
        'content-length': String(Buffer.byteLength(body)),
        'content-type': 'application/x-amz-json-1.0',
        'x-amz-target': 'DynamoDB_20120810.PutItem',
      },
      body,
    },
    { signingDate: now },
  );
  return signed.headers;
}

/** Our signer on the same PutItem request as `referenceHeaders`. */
function signPutItem(url: URL, body: string, creds: Credentials, now: Date) {
  return signRequest(
    {
      method: 'POST',
      url,
      headers: {
        'Content-Type': 'application/x-amz-json-1.0',
        'X-Amz-Target': 'DynamoDB_20120810.PutItem',
      },
      body,
    },
    creds,
    { region: 'eu-west-1', service: 'dynamodb' },
    now,
  );
}

describe('signRequest', () => {
  it.each([
    ['the regional endpoint', 'https://dynamodb.eu-west-1.amazonaws.com/', undefined],
    ['an endpoint with a port', 'http://127.0.0.1:8000/', undefined],
    [
      'temporary Lambda credentials',
      'https://dynamodb.eu-west-1.amazonaws.com/',
      'FwoGZXIvYXdzEBYaDH+token==',
    ],
    [
      'a path and a query string',
      'https://example.amazonaws.com/a b/%C3%A9/?z=1&a=x y&a=*&b=',
      undefined,
    ],
    [
      'empty path segments and a trailing slash',
      'https://example.amazonaws.com//queue//x/',
      undefined,
    ],
  ])('signs like the AWS SDK for %s', async (_case, endpoint, sessionToken) => {
    const url = new URL(endpoint);
    const body =
      '{"TableName":"plants","Item":{"id":{"N":"9223372036854775807"},"name":{"S":"Fern 🌿"}}}';
    const now = new Date('2026-11-22T16:15:00.123Z');
    const creds = sessionToken ? { ...credentials, sessionToken } : credentials;

    const ours = signPutItem(url, body, creds, now);
    const reference = await referenceHeaders(url, body, creds, now);

    expect(ours.authorization).toBe(reference.authorization);
    expect(ours['x-amz-date']).toBe('20261122T161500Z');
    expect(ours['x-amz-security-token']).toBe(sessionToken);
  });

  it('signs like the AWS SDK when the day or the credentials change between requests', async () => {
    const url = new URL('https://dynamodb.eu-west-1.amazonaws.com/');
    const body = '{"TableName":"plants"}';
    const rotated = { accessKeyId: 'AKIDROTATED', secretAccessKey: 'rotated/secret/EXAMPLEKEY' };
    const requests = [
      [credentials, new Date('2026-11-22T23:59:59Z')],
      [credentials, new Date('2026-11-23T00:00:01Z')],
      [rotated, new Date('2026-11-23T00:00:02Z')],
      [credentials, new Date('2026-11-23T00:00:03Z')],
    ] as const;

    for (const [creds, now] of requests) {
      const ours = signPutItem(url, body, creds, now);
      const reference = await referenceHeaders(url, body, creds, now);
      expect(ours.authorization).toBe(reference.authorization);
    }
  });

  it('changes the signature when the body changes', () => {
    const sign = (body: string) =>
      signRequest(
        {
          method: 'POST',
          url: new URL('https://dynamodb.eu-west-1.amazonaws.com/'),
          headers: {},
          body,
        },
        credentials,
        { region: 'eu-west-1', service: 'dynamodb' },
        new Date('2026-11-22T00:00:00Z'),
      ).authorization;

    expect(sign('{"a":1}')).not.toBe(sign('{"a":2}'));
  });
});
