import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmod, lstat, mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DataDirInUseError,
  DataDirUntrustedError,
  DataDirUnusableError,
  ensurePrivateDir,
  lockDataDir,
  readPrivateFile,
} from '../../dev-server/data-dir.ts';
import {
  loadOrCreateSigningKey,
  recordedIssuer,
  recordIssuer,
  signingKeyFile,
} from '../../dev-server/issuer-files.ts';
import { loadOrCreateWebhookSecret } from '../../dev-server/webhook/webhook-secret.ts';
import { tempDataDir } from '../support/local-api-fixture.ts';

const run = promisify(execFile);
let dir: string;
let removeDir: () => Promise<void>;

beforeAll(async () => {
  ({ dir, remove: removeDir } = await tempDataDir());
});

afterAll(async () => {
  await removeDir?.();
});

describe('lockDataDir', () => {
  it('names the directory and PLANTS_DATA_DIR when the directory cannot be made', async () => {
    const file = join(dir, 'a-file');
    await writeFile(file, '');

    const locked = lockDataDir(join(file, 'data'));

    await expect(locked).rejects.toThrow(DataDirUnusableError);
    await expect(locked).rejects.toThrow(
      `The data directory ${join(file, 'data')} is not a directory (or a parent of it is a file). ` +
        'Fix its permissions, or set PLANTS_DATA_DIR to a writable directory, or to "memory"',
    );
  });

  it('lets exactly one of two processes started at the same moment have the directory, a stale lock file notwithstanding', async () => {
    // The lock file an older server, killed, left behind
    const data = join(dir, 'race');
    await mkdir(data, { mode: 0o700 });
    await writeFile(join(data, 'server.pid'), `${await deadPid()}\n`);
    const startAt = Date.now() + 400;

    const outcomes = await lockTogether(data, startAt, 2);

    expect(outcomes.sort()).toEqual(['DataDirInUseError', 'locked']);
  });

  it('is free again once the holder is killed, with no lock to take over', async () => {
    const data = join(dir, 'killed');
    const holder = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const { lockDataDir } = await import(${JSON.stringify(dataDirModule)});
         await lockDataDir(${JSON.stringify(data)}); console.log('locked'); setInterval(() => {}, 1000);`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    await new Promise((resolve) => holder.stdout?.once('data', resolve));
    const whileHeld = lockDataDir(data);
    await expect(whileHeld).rejects.toThrow(DataDirInUseError);

    holder.kill('SIGKILL');
    await new Promise((resolve) => holder.once('exit', resolve));
    const lock = await lockDataDir(data);

    await lock.release();
  });
});

const dataDirModule = fileURLToPath(new URL('../../dev-server/data-dir.ts', import.meta.url));

/**
 * In `count` processes of their own, each tries to lock `data` at the moment `startAt` and holds
 * what it got until every one has answered: a process that starts late (a busy machine) still
 * meets the lock of one that started on time. Each sleeps until just before the moment and spins
 * only through the last few milliseconds, to meet it closely without burning a core.
 */
async function lockTogether(data: string, startAt: number, count: number): Promise<string[]> {
  const children = Array.from({ length: count }, () =>
    spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const { lockDataDir } = await import(${JSON.stringify(dataDirModule)});
         await new Promise((resolve) => setTimeout(resolve, ${startAt} - 20 - Date.now()));
         while (Date.now() < ${startAt});
         const outcome = await lockDataDir(${JSON.stringify(data)}).then(() => 'locked', (error) => error.name);
         console.log(outcome);
         process.stdin.on('end', () => process.exit(0)).resume();`,
      ],
      { stdio: ['pipe', 'pipe', 'inherit'] },
    ),
  );
  const exited = children.map((child) => once(child, 'exit'));
  try {
    return await Promise.all(
      children.map(
        (child) =>
          new Promise<string>((resolve, reject) => {
            createInterface({ input: child.stdout }).once('line', resolve);
            child.once('exit', (code) =>
              reject(new Error(`a locking process exited with ${code}`)),
            );
          }),
      ),
    );
  } finally {
    for (const child of children) child.stdin.end();
    await Promise.all(exited);
  }
}

/** The id of a process that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid ?? 999_999;
}

describe('the data directory is trusted only when only you can change it', () => {
  it('refuses a directory group or others can write to', async () => {
    const shared = join(dir, 'shared');
    await mkdir(shared);
    await chmod(shared, 0o777);

    const locked = lockDataDir(shared);

    await expect(locked).rejects.toThrow(DataDirUntrustedError);
    await expect(locked).rejects.toThrow(`${shared} group or others can write to it`);
  });

  it('refuses a directory or a file that belongs to another user', async () => {
    // Pretend to be another user, since a test cannot make a file another user's
    const file = join(dir, 'mine.json');
    await writeFile(file, '{}', { mode: 0o600 });
    const someoneElse = (process.getuid?.() ?? 0) + 1;

    const checked = await Promise.allSettled([
      ensurePrivateDir(dir, someoneElse),
      readPrivateFile(file, someoneElse),
    ]);

    expect(checked).toEqual([
      { status: 'rejected', reason: expect.any(DataDirUntrustedError) },
      { status: 'rejected', reason: expect.any(DataDirUntrustedError) },
    ]);
    for (const result of checked) {
      expect(result.status === 'rejected' && String(result.reason)).toMatch(
        /belongs to user \d+, not to you/,
      );
    }
  });

  it.each([
    ['readable by others', 0o644],
    ['writable by the group', 0o620],
  ])('refuses a signing key %s', async (_name, mode) => {
    const data = join(dir, `key-${mode.toString(8)}`);
    await loadOrCreateSigningKey(data);
    await chmod(signingKeyFile(data), mode);

    const loaded = loadOrCreateSigningKey(data);

    await expect(loaded).rejects.toThrow(DataDirUntrustedError);
    await expect(loaded).rejects.toThrow(`has mode ${mode.toString(8)}, not 600`);
  });

  it('refuses a signing key that is a symlink, without reading what it points to', async () => {
    const data = join(dir, 'key-link');
    const elsewhere = join(dir, 'planted-jwk.json');
    await loadOrCreateSigningKey(join(dir, 'planter'));
    await writeFile(elsewhere, await readFile(signingKeyFile(join(dir, 'planter'))), {
      mode: 0o600,
    });
    await mkdir(join(data, 'issuer'), { recursive: true, mode: 0o700 });
    await symlink(elsewhere, signingKeyFile(data));

    const loaded = loadOrCreateSigningKey(data);

    await expect(loaded).rejects.toThrow(`${signingKeyFile(data)} is a symbolic link`);
  });

  it('refuses a FIFO at the signing key, naming it, instead of waiting for a writer', async () => {
    const data = join(dir, 'key-fifo');
    await mkdir(join(data, 'issuer'), { recursive: true, mode: 0o700 });
    await run('mkfifo', ['-m', '600', signingKeyFile(data)]);

    const loaded = loadOrCreateSigningKey(data);

    await expect(loaded).rejects.toThrow(DataDirUntrustedError);
    await expect(loaded).rejects.toThrow(`${signingKeyFile(data)} is not a regular file`);
  }, 5_000);

  it.each(['lock', 'dynamodb', 'issuer'])(
    'refuses %s/ inside it when that is a symbolic link, even to a directory of yours',
    async (sub) => {
      const data = join(dir, `linked-${sub}`);
      const elsewhere = join(dir, `elsewhere-${sub}`);
      await mkdir(data, { mode: 0o700 });
      await mkdir(elsewhere, { mode: 0o700 });
      await symlink(elsewhere, join(data, sub));

      const locked = lockDataDir(data);

      await expect(locked).rejects.toThrow(DataDirUntrustedError);
      await expect(locked).rejects.toThrow(`${join(data, sub)} is a symbolic link`);
    },
  );

  it('refuses webhook/ inside it when that is a symbolic link, as it refuses the others', async () => {
    const data = join(dir, 'linked-webhook');
    const elsewhere = join(dir, 'elsewhere-webhook');
    await mkdir(data, { mode: 0o700 });
    await mkdir(elsewhere, { mode: 0o700 });
    await symlink(elsewhere, join(data, 'webhook'));

    const loaded = loadOrCreateWebhookSecret(data);

    await expect(loaded).rejects.toThrow(DataDirUntrustedError);
    await expect(loaded).rejects.toThrow(`${join(data, 'webhook')} is a symbolic link`);
  });

  it('refuses a lock/ that group or others can write to', async () => {
    const data = join(dir, 'shared-lock');
    await mkdir(join(data, 'lock'), { recursive: true, mode: 0o700 });
    await chmod(join(data, 'lock'), 0o777);

    const locked = lockDataDir(data);

    await expect(locked).rejects.toThrow(`${join(data, 'lock')} group or others can write to it`);
  });

  it('replaces a symlink at issuer.json instead of writing through it', async () => {
    const data = join(dir, 'record-link');
    const victim = join(dir, 'victim.txt');
    await writeFile(victim, 'untouched\n');
    await mkdir(join(data, 'issuer'), { recursive: true, mode: 0o700 });
    await symlink(victim, join(data, 'issuer', 'issuer.json'));

    await recordIssuer(data, 'http://127.0.0.1:3000');

    expect(await readFile(victim, 'utf8')).toBe('untouched\n');
    const record = await lstat(join(data, 'issuer', 'issuer.json'));
    expect(record.isFile()).toBe(true);
    expect(record.mode & 0o777).toBe(0o600);
    expect(await recordedIssuer(data)).toBe('http://127.0.0.1:3000');
  });
});
