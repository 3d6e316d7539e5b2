import { createHash } from 'node:crypto';
import { cp, open, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoreDamagedError } from '../../dev-server/store-check.ts';
import {
  clientCredentialsToken,
  createPlant,
  startTestApi,
  tempDataDir,
} from '../support/local-api-fixture.ts';
import { npmStart, runScript } from '../support/node-script.ts';

let removeDirs: (() => Promise<void>)[] = [];

afterAll(async () => {
  for (const remove of removeDirs) await remove();
  removeDirs = [];
});

/** The data directory `writeStore(300)` made, once for the file: each test damages a copy. */
let written: Promise<string> | undefined;

/** A copy of its own of a data directory the dev server wrote 300 plants to and closed cleanly. */
async function writtenStore(): Promise<string> {
  written ??= writeStore(300);
  const { dir, remove } = await tempDataDir();
  removeDirs.push(remove);
  await cp(await written, dir, { recursive: true });
  return dir;
}

/** A data directory whose store the dev server wrote `count` plants to and closed cleanly. */
async function writeStore(count: number): Promise<string> {
  const { dir, remove } = await tempDataDir();
  removeDirs.push(remove);
  const api = await startTestApi({ dataDir: dir });
  const token = await clientCredentialsToken(api);
  for (let first = 1; first <= count; first += 50) {
    const ids = Array.from({ length: Math.min(50, count - first + 1) }, (_, i) => first + i);
    const answers = await Promise.all(
      ids.map((id) => createPlant(api, token, `{"id":${id},"name":"Plant ${id}"}`)),
    );
    expect(answers.map((answer) => answer.status)).toEqual(ids.map(() => 200));
  }
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
    const handle = await open(join(store, log ?? ''), 'r+');
    const byte = Buffer.alloc(1);
    await handle.read(byte, 0, 1, 5_000);
    await handle.write(Buffer.from([(byte[0] ?? 0) ^ 0xff]), 0, 1, 5_000);
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

describe('npm start on a store whose CURRENT is damaged', () => {
  it('exits 1 naming the store and what to do, with no stack trace', async () => {
    const dir = await writtenStore();
    await writeFile(join(dir, 'dynamodb', 'CURRENT'), 'MANIFEST-00000');

    const server = runScript('dev-server/main.ts', { PORT: '0', PLANTS_DATA_DIR: dir });
    const code = await server.exited;

    expect(code).toBe(1);
    expect(server.stderr()).toMatch(
      new RegExp(
        `^Could not start the local API: The store ${join(dir, 'dynamodb')} is damaged: .*CURRENT.*\\. Nothing in it has been changed\\.`,
      ),
    );
    expect(server.stderr()).not.toMatch(/^\s+at /m);
  }, 30_000);
});

describe('startLocalApi on a store whose server was killed', () => {
  it('starts and keeps every create that got a 200 (a killed server is not a damaged store)', async () => {
    const { dir, remove } = await tempDataDir();
    removeDirs.push(remove);
    const { server, create } = await npmStart({ PLANTS_DATA_DIR: dir });
    const stored: number[] = [];

    const writers = Array.from({ length: 8 }, async (_, writer) => {
      for (let id = writer; ; id += 8) {
        const answer = await create(`{"id":${id},"name":"Plant ${id}"}`).catch(() => undefined);
        if (answer?.status !== 200) return;
        stored.push(id);
        if (stored.length === 200) server.child.kill('SIGKILL');
      }
    });
    await Promise.all(writers);
    await server.exited;
    const api = await startTestApi({ dataDir: dir });

    try {
      const token = await clientCredentialsToken(api);
      // A create of a stored id under another name is a 409; of a lost one, a 200.
      const answers: Response[] = [];
      // Eight at a time, as they were written: a busy machine must not turn the check into a 429.
      for (let start = 0; start < stored.length; start += 8) {
        const batch = stored.slice(start, start + 8);
        answers.push(
          ...(await Promise.all(
            batch.map((id) => createPlant(api, token, `{"id":${id},"name":"Other"}`)),
          )),
        );
      }

      expect(stored.length).toBeGreaterThanOrEqual(200);
      expect(answers.map((answer) => answer.status).filter((status) => status !== 409)).toEqual([]);
    } finally {
      await api.close();
    }
  }, 60_000);
});
