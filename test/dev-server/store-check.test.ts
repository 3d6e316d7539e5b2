import { createHash } from 'node:crypto';
import { cp, open, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoreDamagedError } from '../../dev-server/store-check.ts';
import { startTestApi, tempDataDir } from '../support/local-api-fixture.ts';

let removeDirs: (() => Promise<void>)[] = [];

afterAll(async () => {
  for (const remove of removeDirs) await remove();
  removeDirs = [];
});

/** The data directory `writeStore()` made, once for the file: each test damages a copy. */
let written: Promise<string> | undefined;

/** A copy of its own of a data directory the dev server made and closed cleanly. */
async function writtenStore(): Promise<string> {
  written ??= writeStore();
  const { dir, remove } = await tempDataDir();
  removeDirs.push(remove);
  await cp(await written, dir, { recursive: true });
  return dir;
}

/**
 * A data directory the dev server started on and closed cleanly: the write-ahead log of its store
 * holds the records of the table it created, enough for a flipped byte to land in one.
 */
async function writeStore(): Promise<string> {
  const { dir, remove } = await tempDataDir();
  removeDirs.push(remove);
  const api = await startTestApi({ dataDir: dir });
  await api.close();
  return dir;
}

/** Every file of the store and a digest of its bytes, to show that nothing in it changed. */
async function snapshot(store: string): Promise<Record<string, string>> {
  const names = (await readdir(store)).filter((name) => name !== 'LOCK').sort();
  const digests = await Promise.all(
    names.map(async (name) => [
      name,
      createHash('sha256')
        .update(await readFile(join(store, name)))
        .digest('hex'),
    ]),
  );
  return Object.fromEntries(digests);
}

describe('startLocalApi on a store LevelDB cannot read completely', () => {
  let dir: string;
  let store: string;

  beforeAll(async () => {
    dir = await writtenStore();
    store = join(dir, 'dynamodb');
  }, 60_000);

  it('refuses a write-ahead log with a checksum error, naming it and what to do, and changes nothing', async () => {
    const [log] = (await readdir(store)).filter((name) => name.endsWith('.log'));
    // A byte in the midst of its records, flipped.
    const at = Math.floor((await stat(join(store, log ?? ''))).size / 2);
    const handle = await open(join(store, log ?? ''), 'r+');
    const byte = Buffer.alloc(1);
    await handle.read(byte, 0, 1, at);
    await handle.write(Buffer.from([(byte[0] ?? 0) ^ 0xff]), 0, 1, at);
    await handle.close();
    const before = await snapshot(store);

    const first = startTestApi({ dataDir: dir });
    await expect(first).rejects.toThrow(StoreDamagedError);
    await expect(first).rejects.toThrow(
      new RegExp(
        `^The store ${store} is damaged: .*${join(store, log ?? '')}: dropping \\d+ bytes; Corruption: checksum mismatch.*mv ${store} ${store}\\.damaged`,
      ),
    );
    const again = startTestApi({ dataDir: dir });

    await expect(again).rejects.toThrow(StoreDamagedError);
    expect(await snapshot(store)).toEqual(before);
    // The data directory's own, and no trial copy left beside the store.
    expect((await readdir(dir)).sort()).toEqual(['dynamodb', 'issuer', 'lock', 'webhook']);
  });
});

// How npm start prints a refusal is main.test.ts's: this is what it prints for a damaged store.
describe('startLocalApi on a store whose CURRENT is damaged', () => {
  it('refuses it, naming the store and CURRENT, and saying that nothing has been changed', async () => {
    const dir = await writtenStore();
    await writeFile(join(dir, 'dynamodb', 'CURRENT'), 'MANIFEST-00000');

    const started = startTestApi({ dataDir: dir });

    await expect(started).rejects.toThrow(StoreDamagedError);
    await expect(started).rejects.toThrow(
      new RegExp(
        `^The store ${join(dir, 'dynamodb')} is damaged: .*CURRENT.*\\. Nothing in it has been changed\\.`,
      ),
    );
  });
});
