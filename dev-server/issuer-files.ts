import { join } from 'node:path';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type JWK } from 'jose';
import { readOrCreatePrivateFile, readPrivateFile, writePrivateFile } from './data-dir.ts';

/** RS256, as Cognito signs its access tokens, so the handler's verifier sees the same thing here. */
export const signingAlgorithm = 'RS256';

export type SigningKey = Awaited<ReturnType<typeof fromPrivateJwk>>;

export const signingKeyFile = (dataDir: string) => join(dataDir, 'issuer', 'private-jwk.json');
const issuerRecordFile = (dataDir: string) => join(dataDir, 'issuer', 'issuer.json');

/** Kept in the data directory, so that tokens survive a restart and the token CLI signs alike. */
export async function loadOrCreateSigningKey(dataDir: string | undefined): Promise<SigningKey> {
  if (dataDir === undefined) return fromPrivateJwk(await generatePrivateJwk());
  const file = signingKeyFile(dataDir);
  const created = async () => `${JSON.stringify(await generatePrivateJwk(), null, 2)}\n`;
  const key = parsedJwk(file, await readOrCreatePrivateFile(dataDir, file, created));
  if (!key) throw new Error(`Could not read the signing key back from ${file}`);
  return fromPrivateJwk(key);
}

/** The server's URL, which the token CLI's tokens name as their issuer. */
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

function parsedJwk(file: string, text: string | undefined): JWK | undefined {
  try {
    return text === undefined ? undefined : (JSON.parse(text) as JWK);
  } catch (cause) {
    const why = `The signing key file ${file} is not valid JSON: delete it to get a new key`;
    throw new Error(why, { cause });
  }
}

async function fromPrivateJwk(jwk: JWK) {
  const kid = jwk.kid ?? (await calculateJwkThumbprint(jwk));
  const privateKey = await importJWK(jwk, signingAlgorithm);
  if (privateKey instanceof Uint8Array) throw new Error('The signing key must be an RSA key pair');
  const { kty, n, e } = jwk;
  const publicJwk: JWK = { kty, n, e, kid, alg: signingAlgorithm, use: 'sig' };
  // Made of the RSA key's own n and e: an RS256 import of it gives a key or throws.
  const publicKey = (await importJWK(publicJwk, signingAlgorithm)) as typeof privateKey;
  return { kid, privateKey, publicKey, publicJwk };
}
