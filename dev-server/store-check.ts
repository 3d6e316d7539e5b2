import { link, lstat, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

export class StoreDamagedError extends Error {
  constructor(dir: string, detail: string) {
    super(
      `The store ${dir} is damaged: LevelDB cannot read all of it (${detail}). Nothing in it ` +
        'has been changed. Restore it from a copy; or move it aside to start with an empty ' +
        `store (mv ${dir} ${dir}.damaged); or keep what LevelDB can read and lose the rest, as ` +
        'docs/security.md says under "A damaged store".',
    );
    this.name = 'StoreDamagedError';
  }
}

/** The files LevelDB makes anew at each open, or holds a lock on: never shared with the trial. */
const ownedByTheOpener = new Set(['LOCK', 'LOG', 'LOG.old']);

/** Refuses a damaged store: LevelDB drops an unreadable log silently, so a trial opens first. */
export async function checkStore(dir: string): Promise<void> {
  const names = await readdir(dir).catch(() => [] as string[]);
  if (!names.includes('CURRENT')) return;
  const parent = dirname(dir);
  const prefix = `${basename(dir)}-check-`;
  for (const name of await readdir(parent)) {
    if (name.startsWith(prefix)) await rm(join(parent, name), { recursive: true, force: true });
  }
  const trial = await mkdtemp(join(parent, prefix));
  try {
    for (const name of names) {
      if (ownedByTheOpener.has(name)) continue;
      if ((await lstat(join(dir, name))).isFile()) await link(join(dir, name), join(trial, name));
    }
    const detail = await trialOpen(trial);
    if (detail !== undefined) throw new StoreDamagedError(dir, detail.replaceAll(trial, dir));
  } finally {
    await rm(trial, { recursive: true, force: true });
  }
}

async function trialOpen(dir: string): Promise<string | undefined> {
  const { ClassicLevel } = await import('classic-level');
  const db = new ClassicLevel(dir, { createIfMissing: false });
  try {
    await db.open();
  } catch (error) {
    const cause = (error as Error).cause;
    return cause instanceof Error ? cause.message : String(error);
  }
  await db.close();
  const log = await readFile(join(dir, 'LOG'), 'utf8').catch(() => '');
  // e.g. `(ignoring error) …/000003.log: dropping 23278 bytes; Corruption: checksum mismatch`
  const dropped = log.split('\n').filter((line) => /Corruption|dropping \d+ bytes/.test(line));
  if (dropped.length === 0) return undefined;
  return dropped.map((line) => line.replace(/^\S+ \S+ (\(ignoring error\) )?/, '')).join('; ');
}
