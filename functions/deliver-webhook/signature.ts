const { createHmac } = process.getBuiltinModule('node:crypto');

/** The prefix of a Standard Webhooks secret; the rest is the key, base64. */
const secretPrefix = 'whsec_';

/** The signing secret is not a Standard Webhooks secret: it never names what it holds. */
export class SigningSecretError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SigningSecretError';
  }
}

/**
 * The HMAC key a Standard Webhooks secret holds: `whsec_` and base64, or the base64 alone, which
 * is how the stack generates it (docs/decisions/0102-signing-secret.md); the `standardwebhooks`
 * package reads both forms the same way. The specification asks for a key of 24 to 64 bytes.
 */
export function signingKeyOf(secret: string): Buffer {
  const base64 = secret.startsWith(secretPrefix) ? secret.slice(secretPrefix.length) : secret;
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(base64) || base64.length % 4 !== 0) {
    throw new SigningSecretError('the signing secret is not whsec_ followed by base64');
  }
  const key = Buffer.from(base64, 'base64');
  if (key.length < 24 || key.length > 64) {
    throw new SigningSecretError(`the signing key is ${key.length} bytes, not 24 to 64`);
  }
  return key;
}

/** The headers that sign one attempt, per the Standard Webhooks specification. */
export type SignatureHeaders = {
  readonly 'webhook-id': string;
  readonly 'webhook-timestamp': string;
  readonly 'webhook-signature': string;
};

/**
 * Signs `payload` for the attempt at `timestamp` (unix seconds): `v1,` and the base64
 * HMAC-SHA256 of `id.timestamp.payload`, by `node:crypto` rather than the `standardwebhooks`
 * package (docs/decisions/0101-signing-with-node-crypto.md). With several keys (a rotation's
 * overlap), one such signature per key, space-separated, as the specification allows: a
 * subscriber holding either secret verifies the attempt.
 */
export function signatureHeaders(
  keys: Buffer | readonly Buffer[],
  webhookId: string,
  timestamp: number,
  payload: string,
): SignatureHeaders {
  const signed = `${webhookId}.${timestamp}.${payload}`;
  const signatures = (Buffer.isBuffer(keys) ? [keys] : keys).map(
    (key) => `v1,${createHmac('sha256', key).update(signed).digest('base64')}`,
  );
  return {
    'webhook-id': webhookId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signatures.join(' '),
  };
}
