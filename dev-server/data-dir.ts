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
  await lock.open().catch((error: Error) => {
    const cause = (error.cause ?? error) as { code?: string };
    if (cause.code === 'LEVEL_LOCKED') throw new DataDirInUseError(dir);
    throw cause.code === undefined ? cause : new DataDirUnusableError(dir, cause);
  });
  return { release: () => lock.close() };
}

const ownUid = (): number | undefined => process.getuid?.();

/** Creates `dir` (mode 0700) if absent; refuses it unless it is yours and only you can write it. */
export async function ensurePrivateDir(
  dir: string,
  uid = ownUid(),
  { followLink = true } = {},
): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 }).catch((error: unknown) => {
    throw new DataDirUnusableError(dir, error);
  });
  const stats = await (followLink ? stat : lstat)(dir);
  if (stats.isSymbolicLink()) throw new DataDirUntrustedError(dir, 'is a symbolic link');
  if (!stats.isDirectory()) throw new DataDirUnusableError(dir, { code: 'ENOTDIR' });
  checkOwner(dir, stats, 0o022, 'group or others can write to it', uid);
}

/** A regular file of yours of mode 600, not via a symlink, FIFOs refused; `undefined` if absent. */
export async function readPrivateFile(file: string, uid = ownUid()): Promise<string | undefined> {
  const flags = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);
  const handle = await open(file, flags).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    if (error.code === 'ELOOP') throw new DataDirUntrustedError(file, 'is a symbolic link');
    throw error;
  });
  if (handle === undefined) return undefined;
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw new DataDirUntrustedError(file, 'is not a regular file');
    checkOwner(file, stats, 0o077, `has mode ${(stats.mode & 0o777).toString(8)}, not 600`, uid);
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}

/** `file`'s text, made by `create()` if absent: of processes racing to make it, one wins whole. */
export async function readOrCreatePrivateFile(
  dataDir: string,
  file: string,
  create: () => Promise<string> | string,
): Promise<string | undefined> {
  await ensureDataDir(dataDir);
  const stored = await readPrivateFile(file);
  if (stored !== undefined) return stored;
  await writePrivateFile(file, await create(), { keepExisting: true });
  return readPrivateFile(file);
}

/** Writes a mode-600 file whole or not at all; `keepExisting` keeps one made first elsewhere. */
export async function writePrivateFile(
  file: string,
  text: string,
  { keepExisting }: { keepExisting: boolean },
): Promise<void> {
  const aside = `${file}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeFile(aside, text, { flag: 'wx', mode: 0o600 });
    await (keepExisting ? link : rename)(aside, file).catch((error: NodeJS.ErrnoException) => {
      if (!keepExisting || error.code !== 'EEXIST') throw error;
    });
  } finally {
    await rm(aside, { force: true });
  }
}

function checkOwner(path: string, stats: Stats, bits: number, why: string, uid?: number) {
  if (uid === undefined) return;
  if (stats.uid !== uid) {
    throw new DataDirUntrustedError(path, `belongs to user ${stats.uid}, not to you (${uid})`);
  }
  if ((stats.mode & bits) !== 0) throw new DataDirUntrustedError(path, why);
}
