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
 * Refuses a store LevelDB cannot read completely, before anything opens it for real. LevelDB
 * opens a store whose write-ahead log fails its checksums: it keeps what it can read, drops the
 * rest, writes what it kept to a table and deletes the log, and only its LOG file says so
 * (classic-level does not expose the paranoid checks that would fail the open instead). So the
 * store is first opened as a trial copy made of hard links, no bytes copied: LevelDB never
 * writes into a file it did not create in that open, and deleting or renaming a link in the
 * copy leaves the store's own names alone. The copy's LOG then tells whether anything was
 * dropped; a CURRENT or MANIFEST it cannot read fails the trial open itself. Tables are read only
 * when a request needs them, so a damaged table is not found here.
 */
export async function checkStore(dir: string): Promise<void> {
  const names = await readdir(dir).catch(() => [] as string[]);
  // A store not created yet: LevelDB starts an empty one.
  if (!names.includes('CURRENT')) return;
  const parent = dirname(dir);
  const prefix = `${basename(dir)}-check-`;
  // A trial left by a process killed during its check; the caller holds the data directory.
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
  // Loaded here: only a store that already exists is checked.
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
  // Each line without its time, thread and LevelDB's `(ignoring error)`.
  return dropped.map((line) => line.replace(/^\S+ \S+ (\(ignoring error\) )?/, '')).join('; ');
}
