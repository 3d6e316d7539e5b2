import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { signingKeyOf } from '../../functions/deliver-webhook/signature.ts';
import { readOrCreatePrivateFile } from '../data-dir.ts';

export function webhookUrlProblem(url: string): string | undefined {
  // A URL of either scheme always names a host: `http://` alone does not parse.
  const { protocol } = URL.parse(url) ?? {};
  if (protocol === undefined) return `is not a URL: "${url}"`;
  if (protocol === 'http:' || protocol === 'https:') return undefined;
  return `must be an http:// or https:// URL, got "${url}"`;
}

export function webhookSecretProblem(secret: string): string | undefined {
  if (!secret.startsWith('whsec_')) return 'must start with whsec_ (Standard Webhooks form)';
  try {
    signingKeyOf(secret);
    return undefined;
  } catch (error) {
    return `is not usable: ${(error as Error).message}`;
  }
}

export const generateWebhookSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

export const webhookSecretFile = (dataDir: string) => join(dataDir, 'webhook', 'secret');

/** The secret when unset: made once and kept (mode 600), so receivers verify across restarts. */
export async function loadOrCreateWebhookSecret(dataDir: string | undefined): Promise<string> {
  if (dataDir === undefined) return generateWebhookSecret();
  const file = webhookSecretFile(dataDir);
  const stored = await readOrCreatePrivateFile(dataDir, file, () => `${generateWebhookSecret()}\n`);
  const secret = stored?.trim() ?? '';
  const problem = webhookSecretProblem(secret);
  if (problem !== undefined) {
    throw new Error(`The webhook secret in ${file} ${problem}: delete the file to get a new one`);
  }
  return secret;
}
