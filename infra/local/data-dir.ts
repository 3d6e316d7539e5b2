import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export class DataDirInUseError extends Error {
  constructor(dir: string, pid: number) {
    super(
      `The data directory ${dir} is in use by process ${pid} (another \`npm start\`?). ` +
        'Stop it, or set PLANTS_DATA_DIR to another directory, or to "memory".',
    );
    this.name = 'DataDirInUseError';
  }
}

/**
 * Creates the data directory and takes it for this process. LevelDB allows one opener per
 * directory, and a second dynalite on it fails with an uncaught error on its first request:
 * a lock file turns that into a clear message at start-up. A lock left by a dead process is taken over.
 */
export async function lockDataDir(dir: string): Promise<{ release(): Promise<void> }> {
  await mkdir(dir, { recursive: true, mode: 0o700 }).catch((error: unknown) => {
    throw unusable(dir, error);
  });
  const lockFile = join(dir, 'server.pid');
  for (;;) {
    try {
      await writeFile(lockFile, `${process.pid}\n`, { flag: 'wx', mode: 0o600 });
      return { release: () => rm(lockFile, { force: true }) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw unusable(dir, error);
    }
    const holder = Number.parseInt(await readFile(lockFile, 'utf8').catch(() => ''), 10);
    if (Number.isInteger(holder) && holder > 0 && isAlive(holder)) {
      throw new DataDirInUseError(dir, holder);
    }
    await rm(lockFile, { force: true });
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
          : `cannot be used (${code ?? String(cause)})`;
    super(
      `The data directory ${dir} ${why}. Fix its permissions, or set PLANTS_DATA_DIR to a ` +
        'writable directory, or to "memory" to keep the data in memory.',
      { cause },
    );
    this.name = 'DataDirUnusableError';
  }
}

function unusable(dir: string, cause: unknown): Error {
  const code = (cause as NodeJS.ErrnoException | undefined)?.code;
  return code === undefined ? (cause as Error) : new DataDirUnusableError(dir, cause);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
