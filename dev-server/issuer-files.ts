import { join } from 'node:path';
import {
  calculateJwkThumbprint,
  exportJWK,
  generateKeyPair,
  importJWK,
  type CryptoKey as JoseCryptoKey,
  type JWK,
} from 'jose';
import { ensureDataDir, readPrivateFile, writePrivateFile } from './data-dir.ts';

// The issuer's key pair and URL in `issuer/`, so that `npm run -s token` signs as the server.

/** RS256, as Cognito signs its access tokens, so the handler's verifier sees the same thing here. */
export const signingAlgorithm = 'RS256';

export type SigningKey = Awaited<ReturnType<typeof fromPrivateJwk>>;

export const signingKeyFile = (dataDir: string) => join(dataDir, 'issuer', 'private-jwk.json');
const issuerRecordFile = (dataDir: string) => join(dataDir, 'issuer', 'issuer.json');

/** The issuer's key pair, kept in the data directory so that tokens survive a restart. */
export async function loadOrCreateSigningKey(dataDir: string | undefined): Promise<SigningKey> {
  if (dataDir === undefined) return fromPrivateJwk(await generatePrivateJwk());
  const file = signingKeyFile(dataDir);
  await ensureDataDir(dataDir);
  const stored = await readPrivateJwk(file);
  if (stored) return fromPrivateJwk(stored);
  // The server and the token CLI may race to create it: the first whole key linked wins.
  const created = `${JSON.stringify(await generatePrivateJwk(), null, 2)}\n`;
  await writePrivateFile(file, created, { keepExisting: true });
  const key = await readPrivateJwk(file);
  if (!key) throw new Error(`Could not read the signing key back from ${file}`);
  return fromPrivateJwk(key);
}

export async function recordIssuer(dataDir: string, issuer: string): Promise<void> {
  const text = `${JSON.stringify({ issuer })}\n`;
  await writePrivateFile(issuerRecordFile(dataDir), text, { keepExisting: false });
}

export async function recordedIssuer(dataDir: string): Promise<string | undefined> {
  const text = await readPrivateFile(issuerRecordFile(dataDir));
  try {
    const issuer = (JSON.parse(text ?? 'null') as { issuer?: unknown } | null)?.issuer;
    return typeof issuer === 'string' ? issuer : undefined;
  } catch {
    return undefined;
  }
}

async function generatePrivateJwk(): Promise<JWK> {
  const { privateKey } = await generateKeyPair(signingAlgorithm, { extractable: true });
  const jwk = await exportJWK(privateKey);
  return { ...jwk, kid: await calculateJwkThumbprint(jwk), alg: signingAlgorithm, use: 'sig' };
}

async function readPrivateJwk(file: string): Promise<JWK | undefined> {
  const text = await readPrivateFile(file);
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as JWK;
  } catch (cause) {
    throw new Error(`The signing key file ${file} is not valid JSON: delete it to get a new key`, {
      cause,
    });
  }
}

async function fromPrivateJwk(jwk: JWK) {
  const kid = jwk.kid ?? (await calculateJwkThumbprint(jwk));
  const privateKey = await importJWK(jwk, signingAlgorithm);
  if (privateKey instanceof Uint8Array) throw new Error('The signing key must be an RSA key pair');
  const { kty, n, e } = jwk;
  const publicJwk: JWK = { kty, n, e, kid, alg: signingAlgorithm, use: 'sig' };
  // Made of the RSA key's own n and e: an RS256 import of it gives a key or throws.
  const publicKey = (await importJWK(publicJwk, signingAlgorithm)) as JoseCryptoKey;
  return { kid, privateKey, publicKey, publicJwk };
}
