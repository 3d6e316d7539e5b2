import { randomUUID, timingSafeEqual } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Hash } from '@smithy/hash-node';
import { SignatureV4 } from '@smithy/signature-v4';

/** The account every local ARN and queue URL names. */
export const localAccountId = '000000000000';

/** An error the service means, answered as its JSON protocol writes errors. */
export class AwsServiceError extends Error {
  readonly type: string;
  readonly statusCode: number;

  constructor(type: string, message: string, statusCode = 400) {
    super(message);
    this.name = 'AwsServiceError';
    this.type = type;
    this.statusCode = statusCode;
  }
}

export type AwsJsonAction = (input: Readonly<Record<string, unknown>>) => Promise<object>;

/** One AWS service that speaks the AWS JSON protocol, as far as the stand-ins need it. */
export interface AwsJsonService {
  /** SigV4's signing name: `sqs`, `secretsmanager`. */
  readonly signingName: string;
  /** What `X-Amz-Target` puts before the action: `AmazonSQS`, `secretsmanager`. */
  readonly targetPrefix: string;
  /** The content type's version: SQS speaks 1.0, Secrets Manager 1.1. */
  readonly jsonVersion: '1.0' | '1.1';
  readonly actions: Readonly<Record<string, AwsJsonAction>>;
  /** The error body and headers, as the service writes them. */
  readonly errorAnswer: (error: AwsServiceError) => {
    readonly body: object;
    readonly headers?: Readonly<Record<string, string>>;
  };
}

export interface AwsJsonEndpoint {
  /** `http://127.0.0.1:<port>`: what `AWS_ENDPOINT_URL_<SERVICE>` points at. */
  readonly url: string;
  close(): Promise<void>;
}

/** A request this large is no call the stand-ins serve. */
const maxBodyBytes = 256 * 1024;
/** How far a request's `X-Amz-Date` may be from now before AWS refuses it as expired or future. */
const maxClockSkewMs = 5 * 60 * 1000;

/**
 * A loopback HTTP endpoint for one AWS JSON protocol service: `POST /`, the action in
 * `X-Amz-Target`, a JSON body of `application/x-amz-json-1.x`. Like AWS, it refuses a request
 * that is not SigV4-signed for this service and region with the credentials it was given, and
 * checks the signature with the AWS SDK's own signer (`@smithy/signature-v4`), so a signing
 * mistake in the function fails here as it would on AWS, not only in production.
 */
export async function startAwsJsonEndpoint(
  service: AwsJsonService,
  access: {
    readonly region: string;
    readonly credentials: { readonly accessKeyId: string; readonly secretAccessKey: string };
  },
): Promise<AwsJsonEndpoint> {
  const signer = new SignatureV4({
    credentials: access.credentials,
    region: access.region,
    service: service.signingName,
    sha256: Hash.bind(null, 'sha256'),
    applyChecksum: false,
  });
  const contentType = `application/x-amz-json-${service.jsonVersion}`;

  const answer = async (req: IncomingMessage, body: Buffer): Promise<object> => {
    const target = req.headers['x-amz-target'];
    const prefix = `${service.targetPrefix}.`;
    const action =
      typeof target === 'string' && target.startsWith(prefix)
        ? service.actions[target.slice(prefix.length)]
        : undefined;
    if (req.method !== 'POST' || action === undefined) {
      throw new AwsServiceError('UnknownOperationException', `Unknown operation ${target}`);
    }
    if (req.headers['content-type']?.split(';')[0]?.trim() !== contentType) {
      throw new AwsServiceError('SerializationException', `Expected ${contentType}`);
    }
    await checkSignature(req, body, signer, service.signingName, access);
    let input: unknown;
    try {
      input = JSON.parse(body.toString('utf8') || '{}');
    } catch {
      throw new AwsServiceError('SerializationException', 'The request body is not JSON');
    }
    if (input === null || typeof input !== 'object' || Array.isArray(input)) {
      throw new AwsServiceError('SerializationException', 'The request body is not a JSON object');
    }
    return action(input as Record<string, unknown>);
  };

  const server = createServer((req, res) => {
    readBody(req)
      .then((body) => answer(req, body))
      .then(
        (output) => respond(res, 200, contentType, output),
        (error: unknown) => {
          const failure =
            error instanceof AwsServiceError
              ? error
              : new AwsServiceError('InternalFailure', 'The request processing has failed', 500);
          if (!(error instanceof AwsServiceError)) console.error('local AWS endpoint:', error);
          const { body, headers } = service.errorAnswer(failure);
          respond(res, failure.statusCode, contentType, body, headers);
        },
      );
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function respond(
  res: ServerResponse,
  status: number,
  contentType: string,
  body: object,
  headers: Readonly<Record<string, string>> = {},
) {
  res.writeHead(status, {
    ...headers,
    'content-type': contentType,
    'x-amzn-requestid': randomUUID(),
  });
  res.end(JSON.stringify(body));
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    length += chunk.length;
    if (length > maxBodyBytes) throw new AwsServiceError('RequestEntityTooLarge', 'Too large', 413);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/**
 * SigV4 as AWS checks it: the credential scope names these credentials, this region and this
 * service; the date is within the allowed skew; and the signature over the headers it says it
 * signed is the one the AWS SDK's signer computes for them.
 */
async function checkSignature(
  req: IncomingMessage,
  body: Buffer,
  signer: SignatureV4,
  signingName: string,
  access: { readonly region: string; readonly credentials: { readonly accessKeyId: string } },
): Promise<void> {
  const authorization = req.headers.authorization ?? '';
  const parsed =
    /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/.exec(
      authorization,
    );
  if (parsed === null) {
    throw new AwsServiceError(
      'MissingAuthenticationTokenException',
      'Request is missing Authentication Token',
      403,
    );
  }
  const [, accessKeyId, day, region, scopeService, signedHeaders = '', signature = ''] = parsed;
  if (accessKeyId !== access.credentials.accessKeyId) {
    throw new AwsServiceError(
      'UnrecognizedClientException',
      'The security token included in the request is invalid.',
      403,
    );
  }
  if (region !== access.region || scopeService !== signingName) {
    throw new AwsServiceError(
      'InvalidSignatureException',
      `Credential should be scoped to region ${access.region} and service ${signingName}`,
      403,
    );
  }
  const amzDate = String(req.headers['x-amz-date'] ?? '');
  const signedAt = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(amzDate);
  const date =
    signedAt && new Date(`${signedAt.slice(1, 4).join('-')}T${signedAt.slice(4).join(':')}Z`);
  if (!date || Number.isNaN(date.getTime()) || !amzDate.startsWith(day ?? '-')) {
    throw new AwsServiceError('IncompleteSignatureException', 'X-Amz-Date is missing or invalid');
  }
  if (Math.abs(date.getTime() - Date.now()) > maxClockSkewMs) {
    throw new AwsServiceError('InvalidSignatureException', 'Signature expired', 403);
  }
  const headers: Record<string, string> = {};
  for (const name of signedHeaders.split(';')) {
    const value = req.headers[name];
    headers[name] = Array.isArray(value) ? value.join(',') : (value ?? '');
  }
  const url = new URL(req.url ?? '/', 'http://local');
  const expected = await signer.sign(
    {
      method: req.method ?? 'POST',
      protocol: 'http:',
      hostname: String(req.headers.host ?? ''),
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers,
      body: body.toString('utf8'),
    },
    { signingDate: date },
  );
  const computed = /Signature=([0-9a-f]{64})$/.exec(String(expected.headers.authorization))?.[1];
  if (
    computed === undefined ||
    !timingSafeEqual(Buffer.from(computed), Buffer.from(signature.padEnd(64, '0')))
  ) {
    throw new AwsServiceError(
      'InvalidSignatureException',
      'The request signature we calculated does not match the signature you provided.',
      403,
    );
  }
}
