import { Hash } from '@smithy/hash-node';
import { SignatureV4 } from '@smithy/signature-v4';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type AwsCredentials,
  type SignableRequest,
  signRequest,
} from '../../../functions/connections/aws-signature-v4.ts';

/**
 * Our signer against the AWS SDK's (`@smithy/signature-v4`) on random requests
 * (docs/decisions/0132-hand-written-code-under-differential-tests.md): methods, hosts, paths and
 * queries of any characters, bodies, header values with every kind of whitespace, credentials with
 * and without a session token, dates and scopes. The signatures must be equal. The header names
 * are those a caller of ours may pass: the SDK leaves some unsigned (`user-agent`, `proxy-*`), and
 * reads `x-amz-content-sha256` as the body's hash, where ours signs every header it is given and
 * hashes the body itself. `SIGV4_DIFFERENTIAL_RUNS` (and `SIGV4_DIFFERENTIAL_SEED`) make a long run.
 */
const runs = Number(process.env.SIGV4_DIFFERENTIAL_RUNS ?? 400);
const seed = Number(process.env.SIGV4_DIFFERENTIAL_SEED ?? 117);

/** Text of any code points, unpaired surrogates included, with the characters URLs treat apart. */
const text = (maxLength: number) =>
  fc.oneof(
    fc.string({ unit: 'binary', maxLength }),
    fc.string({
      unit: fc.constantFrom('a', 'Z', '0', '-', '_', '.', '~', ' ', '+', '%', '%2F', '/', '*', '!'),
      maxLength,
    }),
  );

/** Header values built from the whitespace the two signers might read differently. */
const headerValue = fc
  .array(
    fc.constantFrom(
      'a',
      'value',
      'x=1;y',
      'é',
      '🌿',
      ' ',
      '   ',
      '\t',
      ' \t ',
      '\r',
      '\n',
      '\r\n',
      '\u00a0', // no-break space
      '\u2003', // em space
      '\u3000', // ideographic space
      '\ufeff', // byte-order mark
      '\u000b', // vertical tab
      '\u000c', // form feed
      '\u2028', // line separator
    ),
    { maxLength: 8 },
  )
  .map((parts) => parts.join(''));

const headerNames = [
  'content-type',
  'X-Amz-Target',
  'x-amz-meta-Plant',
  'accept',
  'content-encoding',
  'x-custom',
  'X-Api-Version',
] as const;

const requestArbitrary = fc.record({
  method: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS'),
  host: fc.constantFrom(
    'sqs.eu-west-1.amazonaws.com',
    'secretsmanager.us-east-1.amazonaws.com',
    '127.0.0.1:8000',
    'localhost:4566',
    '[::1]:9324',
  ),
  segments: fc.array(text(12), { maxLength: 5 }),
  trailingSlash: fc.boolean(),
  query: fc.array(fc.tuple(text(8), text(12)), { maxLength: 5 }),
  headers: fc.dictionary(fc.constantFrom(...headerNames), headerValue, { maxKeys: 4 }),
  body: text(64),
  accessKeyId: fc.constantFrom('AKIDEXAMPLE', 'ASIAEXAMPLE123456789'),
  secretAccessKey: fc.string({ minLength: 1, maxLength: 40 }),
  sessionToken: fc.option(fc.string({ minLength: 1, maxLength: 60 }), { nil: undefined }),
  region: fc.constantFrom('eu-west-1', 'us-east-1', 'ap-southeast-2'),
  service: fc.constantFrom('sqs', 'secretsmanager', 'dynamodb'),
  now: fc.date({
    min: new Date('2000-01-01T00:00:00Z'),
    max: new Date('2099-12-31T23:59:59Z'),
    noInvalidDate: true,
  }),
});
type Generated = typeof requestArbitrary extends fc.Arbitrary<infer T> ? T : never;

/** The request's URL: its path and query set through the URL API, as our clients build theirs. */
function urlOf(generated: Generated): URL {
  const url = new URL(`https://${generated.host}`);
  const path = generated.segments.join('/');
  url.pathname = `/${path}${generated.trailingSlash && path !== '' ? '/' : ''}`;
  for (const [name, value] of generated.query) {
    // The SDK drops a parameter named X-Amz-Signature (a presigned URL's), and stores the query in
    // a plain object, where `__proto__` is not a name: neither is a request of ours.
    if (name.toLowerCase() !== 'x-amz-signature' && name !== '__proto__') {
      url.searchParams.append(name, value);
    }
  }
  return url;
}

/** The SDK's signature for the request as ours sends it: its headers and the ones ours adds. */
async function referenceAuthorization(
  request: SignableRequest,
  credentials: AwsCredentials,
  scope: { region: string; service: string },
  now: Date,
): Promise<string | undefined> {
  const { url } = request;
  const signer = new SignatureV4({
    credentials,
    ...scope,
    sha256: Hash.bind(null, 'sha256'),
    applyChecksum: false,
  });
  const names = [...new Set(url.searchParams.keys())];
  const signed = await signer.sign(
    {
      method: request.method,
      protocol: url.protocol,
      hostname: url.hostname,
      port: url.port ? Number(url.port) : undefined,
      path: url.pathname,
      query: Object.fromEntries(names.map((name) => [name, url.searchParams.getAll(name)])),
      headers: {
        ...request.headers,
        host: url.host,
        'content-length': String(Buffer.byteLength(request.body)),
      },
      body: request.body,
    },
    { signingDate: now },
  );
  return signed.headers.authorization;
}

describe('the SigV4 signer against the AWS SDK', () => {
  it(`signs ${runs} random requests as the SDK does`, async () => {
    await fc.assert(
      fc.asyncProperty(requestArbitrary, async (generated) => {
        const request = {
          method: generated.method,
          url: urlOf(generated),
          headers: generated.headers,
          body: generated.body,
        };
        const { accessKeyId, secretAccessKey, sessionToken, region, service, now } = generated;
        const credentials = { accessKeyId, secretAccessKey, sessionToken };

        const ours = signRequest(request, credentials, { region, service }, now);
        const reference = await referenceAuthorization(
          request,
          credentials,
          { region, service },
          now,
        );

        expect(ours.authorization).toBe(reference);
      }),
      { numRuns: runs, seed },
    );
  });

  it.each([
    ['a no-break space', 'a\u00a0b\u00a0'],
    ['an em space', '\u2003value'],
    ['a byte-order mark', '\ufeffvalue'],
    ['spaces and tabs, which collapse', ' \t a \t b \t '],
    ['line breaks, read as spaces', 'a\r\nb\n'],
  ])('keeps header-value whitespace as the SDK does: %s', async (_case, value) => {
    const request = {
      method: 'POST',
      url: new URL('https://sqs.eu-west-1.amazonaws.com/'),
      headers: { 'x-custom': value },
      body: '{}',
    };
    const credentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' };
    const scope = { region: 'eu-west-1', service: 'sqs' };
    const now = new Date('2026-11-22T16:15:00Z');

    expect(signRequest(request, credentials, scope, now).authorization).toBe(
      await referenceAuthorization(request, credentials, scope, now),
    );
  });
});
