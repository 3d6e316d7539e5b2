import { randomBytes } from 'node:crypto';
import { constants, type Stats } from 'node:fs';
import { link, lstat, mkdir, open, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export class DataDirInUseError extends Error {
  constructor(dir: string) {
    super(
      `The data directory ${dir} is in use by another process (another \`npm start\`?). ` +
        'Stop it, or set PLANTS_DATA_DIR to another directory, or to "memory".',
    );
    this.name = 'DataDirInUseError';
  }
}

export class DataDirUnusableError extends Error {
  constructor(dir: string, cause: unknown) {
    const code = (cause as NodeJS.ErrnoException).code;
    const why =
      code === 'EACCES' || code === 'EPERM' || code === 'EROFS'
        ? 'is not writable'
        : code === 'ENOTDIR' || code === 'EEXIST'
          ? 'is not a directory (or a parent of it is a file)'
          : `cannot be used (${code})`;
    super(
      `The data directory ${dir} ${why}. Fix its permissions, or set PLANTS_DATA_DIR to a ` +
        'writable directory, or to "memory" to keep the data in memory.',
      { cause },
    );
    this.name = 'DataDirUnusableError';
  }
}

/** A file or directory in the data directory that someone other than this user could have made. */
export class DataDirUntrustedError extends Error {
  constructor(path: string, why: string) {
    super(
      `${path} ${why}, so another user could have prepared it: the local server trusts only ` +
        'what you alone can change. Check it, then fix or delete it, or set PLANTS_DATA_DIR elsewhere.',
    );
    this.name = 'DataDirUntrustedError';
  }
}

/** The data directory (which may be a link you made) and the ones it holds (which may not). */
export async function ensureDataDir(dataDir: string): Promise<void> {
  await ensurePrivateDir(dataDir);
  for (const sub of ['issuer', 'dynamodb', 'lock', 'webhook']) {
    await ensurePrivateDir(join(dataDir, sub), ownUid(), { followLink: false });
  }
}

/** Creates and locks the data directory with LevelDB's lock, which the kernel drops at exit. */
export async function lockDataDir(dir: string): Promise<{ release(): Promise<void> }> {
  await ensureDataDir(dir);
  // Loaded here, not at the top: the token CLI imports this module and never locks.
  const { ClassicLevel } = await import('classic-level');
  const lock = new ClassicLevel(join(dir, 'lock'));
  try {
    await lock.open();
  } catch (error) {
    const cause = ((error as Error).cause ?? error) as { code?: string };
    if (cause.code === 'LEVEL_LOCKED') throw new DataDirInUseError(dir);
    throw cause.code === undefined ? cause : new DataDirUnusableError(dir, cause);
  }
  return { release: () => lock.close() };
}

const ownUid = (): number | undefined => process.getuid?.();

/** Creates `dir` (mode 0700) if absent; refuses it unless it is yours and only you can write it. */
export async function ensurePrivateDir(
  dir: string,
  uid = ownUid(),
  { followLink = true } = {},
): Promise<void> {
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw new DataDirUnusableError(dir, error);
  }
  const stats = await (followLink ? stat : lstat)(dir);
  if (stats.isSymbolicLink()) throw new DataDirUntrustedError(dir, 'is a symbolic link');
  if (!stats.isDirectory()) throw new DataDirUnusableError(dir, { code: 'ENOTDIR' });
  checkOwner(dir, stats, uid, 0o022, 'group or others can write to it');
}

/** A regular file of yours of mode 600, not via a symlink, FIFOs refused; `undefined` if absent. */
export async function readPrivateFile(file: string, uid = ownUid()): Promise<string | undefined> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    const flags = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);
    handle = await open(file, flags);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP') throw new DataDirUntrustedError(file, 'is a symbolic link');
    throw error;
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw new DataDirUntrustedError(file, 'is not a regular file');
    checkOwner(file, stats, uid, 0o077, `has mode ${(stats.mode & 0o777).toString(8)}, not 600`);
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}

/** Writes a mode-600 file whole or not at all; `keepExisting` keeps one made first elsewhere. */
export async function writePrivateFile(
  file: string,
  text: string,
  options: { keepExisting: boolean },
): Promise<void> {
  const aside = `${file}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeFile(aside, text, { flag: 'wx', mode: 0o600 });
    if (!options.keepExisting) await rename(aside, file);
    else {
      await link(aside, file).catch((error: unknown) => {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      });
    }
  } finally {
    await rm(aside, { force: true });
  }
}

function checkOwner(
  path: string,
  stats: Stats,
  uid: number | undefined,
  bits: number,
  why: string,
) {
  if (uid === undefined) return;
  if (stats.uid !== uid) {
    throw new DataDirUntrustedError(path, `belongs to user ${stats.uid}, not to you (${uid})`);
  }
  if ((stats.mode & bits) !== 0) throw new DataDirUntrustedError(path, why);
}
