import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataDirUnusableError, lockDataDir } from '../../../infra/local/data-dir.ts';
import { tempDataDir } from './local-api-fixture.ts';

describe('lockDataDir', () => {
  let dir: string;
  let removeDir: () => Promise<void>;

  beforeAll(async () => {
    ({ dir, remove: removeDir } = await tempDataDir());
  });

  afterAll(async () => {
    await removeDir?.();
  });

  it('names the directory and PLANTS_DATA_DIR when the directory cannot be made', async () => {
    // Prepare
    const file = join(dir, 'a-file');
    await writeFile(file, '');

    // Act
    const locked = lockDataDir(join(file, 'data'));

    // Assess
    await expect(locked).rejects.toThrow(DataDirUnusableError);
    await expect(locked).rejects.toThrow(
      `The data directory ${join(file, 'data')} is not a directory (or a parent of it is a file). ` +
        'Fix its permissions, or set PLANTS_DATA_DIR to a writable directory, or to "memory"',
    );
  });
});
