import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * The issuer URL of the server last started on a data directory, so that `npm run -s token`
 * signs for the right `iss` even when the server was started with another PORT. Writer and reader
 * live here together; the token CLI loads this, not the server.
 */
function issuerRecordFile(dataDir: string): string {
  return join(dataDir, 'issuer', 'issuer.json');
}

export async function recordIssuer(dataDir: string, issuer: string): Promise<void> {
  await mkdir(join(dataDir, 'issuer'), { recursive: true, mode: 0o700 });
  await writeFile(issuerRecordFile(dataDir), `${JSON.stringify({ issuer })}\n`, { mode: 0o600 });
}

export async function recordedIssuer(dataDir: string): Promise<string | undefined> {
  try {
    const record = JSON.parse(await readFile(issuerRecordFile(dataDir), 'utf8')) as unknown;
    const issuer = (record as { issuer?: unknown } | null)?.issuer;
    return typeof issuer === 'string' ? issuer : undefined;
  } catch {
    return undefined;
  }
}
