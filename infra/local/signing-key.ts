import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  calculateJwkThumbprint,
  exportJWK,
  generateKeyPair,
  importJWK,
  type CryptoKey as JoseCryptoKey,
  type JWK,
} from 'jose';

/** RS256, as Cognito signs its access tokens, so the handler's verifier sees the same thing here. */
export const signingAlgorithm = 'RS256';

export interface SigningKey {
  readonly kid: string;
  readonly privateKey: JoseCryptoKey;
  /** The public half, as served in the JWKS. */
  readonly publicJwk: JWK;
}

/** Where the key pair lives in a data directory; the private key file is readable by its owner only. */
export function signingKeyFile(dataDir: string): string {
  return join(dataDir, 'issuer', 'private-jwk.json');
}

/**
 * The issuer's key pair: generated on first use, then read back from the data directory so that
 * tokens minted before a restart, or by `npm run -s token` in another process, stay valid.
 * Without a directory the key lives in memory for the life of the process.
 */
export async function loadOrCreateSigningKey(dataDir: string | undefined): Promise<SigningKey> {
  if (dataDir === undefined) return fromPrivateJwk(await generatePrivateJwk());
  const file = signingKeyFile(dataDir);
  const stored = await readPrivateJwk(file);
  if (stored) return fromPrivateJwk(stored);
  await mkdir(join(dataDir, 'issuer'), { recursive: true, mode: 0o700 });
  try {
    await writeFile(file, `${JSON.stringify(await generatePrivateJwk(), null, 2)}\n`, {
      flag: 'wx',
      mode: 0o600,
    });
  } catch (error) {
    // The server and the token CLI may race to create it: the first writer wins, both read it.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const created = await readPrivateJwk(file);
  if (!created) throw new Error(`Could not read the signing key back from ${file}`);
  return fromPrivateJwk(created);
}

async function generatePrivateJwk(): Promise<JWK> {
  const { privateKey } = await generateKeyPair(signingAlgorithm, { extractable: true });
  const jwk = await exportJWK(privateKey);
  return { ...jwk, kid: await calculateJwkThumbprint(jwk), alg: signingAlgorithm, use: 'sig' };
}

async function readPrivateJwk(file: string): Promise<JWK | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    // A file caught half-written by a racing writer is empty: read it as absent.
    return text.trim() === '' ? undefined : (JSON.parse(text) as JWK);
  } catch (error) {
    throw new Error(`The signing key file ${file} is not valid JSON: delete it to get a new key`, {
      cause: error,
    });
  }
}

async function fromPrivateJwk(jwk: JWK): Promise<SigningKey> {
  const kid = jwk.kid ?? (await calculateJwkThumbprint(jwk));
  const privateKey = await importJWK(jwk, signingAlgorithm);
  if (privateKey instanceof Uint8Array) throw new Error('The signing key must be an RSA key pair');
  const { kty, n, e } = jwk;
  return { kid, privateKey, publicJwk: { kty, n, e, kid, alg: signingAlgorithm, use: 'sig' } };
}
