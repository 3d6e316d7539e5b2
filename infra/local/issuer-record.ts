import { join } from 'node:path';
import { ensurePrivateDir, readPrivateFile, writePrivateFile } from './data-dir.ts';

/**
 * The issuer URL of the server last started on a data directory, so that `npm run -s token`
 * signs for the right `iss` even when the server was started with another PORT. Writer and reader
 * live here together; the token CLI loads this, not the server.
 */
function issuerRecordFile(dataDir: string): string {
  return join(dataDir, 'issuer', 'issuer.json');
}

export async function recordIssuer(dataDir: string, issuer: string): Promise<void> {
  await ensurePrivateDir(join(dataDir, 'issuer'));
  // Renamed into place: a symlink left at that name is replaced, never written through.
  await writePrivateFile(issuerRecordFile(dataDir), `${JSON.stringify({ issuer })}\n`, {
    keepExisting: false,
  });
}

export async function recordedIssuer(dataDir: string): Promise<string | undefined> {
  const text = await readPrivateFile(issuerRecordFile(dataDir));
  try {
    const record = JSON.parse(text ?? 'null') as unknown;
    const issuer = (record as { issuer?: unknown } | null)?.issuer;
    return typeof issuer === 'string' ? issuer : undefined;
  } catch {
    return undefined;
  }
}
