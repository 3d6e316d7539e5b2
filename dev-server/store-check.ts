import { link, lstat, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** A store LevelDB cannot read completely: start-up stops instead of serving what is left. */
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

/**
 * Refuses a store LevelDB cannot read completely, before anything opens it for real. LevelDB opens
 * a store whose write-ahead log fails its checksums by dropping what it cannot read, and only its
 * LOG file says so (classic-level has no paranoid checks). So a trial copy made of hard links is
 * opened first: LevelDB never writes into a file it did not create in that open, and its LOG tells
 * whether anything was dropped. A damaged table is found only when a request reads it.
 */
export async function checkStore(dir: string): Promise<void> {
  const names = await readdir(dir).catch(() => [] as string[]);
  if (!names.includes('CURRENT')) return;
  const parent = dirname(dir);
  const prefix = `${basename(dir)}-check-`;
  // A trial left by a process killed during its check.
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

/** What LevelDB could not read in `dir`, from its open error or its LOG; undefined for nothing. */
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
