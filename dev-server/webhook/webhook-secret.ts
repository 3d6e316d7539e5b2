import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { signingKeyOf } from '../../functions/deliver-webhook/signature.ts';
import { ensureDataDir, readPrivateFile, writePrivateFile } from '../data-dir.ts';

/** Why `PLANTS_WEBHOOK_URL` is no absolute http(s) URL (locally, http is fine), or `undefined`. */
export function webhookUrlProblem(url: string): string | undefined {
  // A URL of either scheme always names a host: `http://` alone does not parse.
  const { protocol } = URL.parse(url) ?? {};
  if (protocol === undefined) return `is not a URL: "${url}"`;
  if (protocol !== 'http:' && protocol !== 'https:') {
    return `must be an http:// or https:// URL, got "${url}"`;
  }
  return undefined;
}

/** Why a secret is not one the deliverer reads (`whsec_`, a base64 key), or `undefined`. */
export function webhookSecretProblem(secret: string): string | undefined {
  if (!secret.startsWith('whsec_')) return 'must start with whsec_ (Standard Webhooks form)';
  try {
    signingKeyOf(secret);
    return undefined;
  } catch (error) {
    return `is not usable: ${(error as Error).message}`;
  }
}

/** A new signing secret: 32 random bytes, as `whsec_` and base64. */
export const generateWebhookSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

export const webhookSecretFile = (dataDir: string) => join(dataDir, 'webhook', 'secret');

/**
 * The secret when `PLANTS_WEBHOOK_SECRET` is unset: generated once and kept in the data directory
 * (mode 600), so that a receiver keeps verifying across restarts and `npm run webhook:listen`
 * finds it; in memory, a new one per start.
 */
export async function loadOrCreateWebhookSecret(dataDir: string | undefined): Promise<string> {
  if (dataDir === undefined) return generateWebhookSecret();
  const file = webhookSecretFile(dataDir);
  await ensureDataDir(dataDir);
  let stored = await readPrivateFile(file);
  if (stored === undefined) {
    // The server and the listener may race to create it: the first whole file linked wins.
    await writePrivateFile(file, `${generateWebhookSecret()}\n`, { keepExisting: true });
    stored = await readPrivateFile(file);
  }
  const secret = stored?.trim() ?? '';
  const problem = webhookSecretProblem(secret);
  if (problem !== undefined) {
    throw new Error(`The webhook secret in ${file} ${problem}: delete the file to get a new one`);
  }
  return secret;
}
