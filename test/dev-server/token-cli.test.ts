import { execFile } from 'node:child_process';
import { mkdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signingKeyFile } from '../../dev-server/issuer-files.ts';
import type { LocalApi } from '../../dev-server/local-api.ts';
import { client, createPlant, startTestApi, tempDataDir } from '../support/local-api-fixture.ts';

const tokenCli = fileURLToPath(new URL('../../dev-server/token.ts', import.meta.url));
const run = promisify(execFile);
const jwtShape = /^[\w-]+\.[\w-]+\.[\w-]+\n$/;

function runTokenCli(env: Record<string, string>) {
  // process.execPath is the Node 24 that runs vitest, which strips the CLI's types itself.
  return run(process.execPath, [tokenCli], {
    timeout: 5_000,
    env: {
      PATH: process.env.PATH ?? '',
      PLANTS_CLIENT_ID: client.id,
      PLANTS_CLIENT_SECRET: client.secret,
      ...env,
    },
  });
}

describe('token CLI (npm run -s token)', () => {
  let api: LocalApi;
  let dir: string;
  let removeDir: () => Promise<void>;

  beforeAll(async () => {
    ({ dir, remove: removeDir } = await tempDataDir());
    api = await startTestApi({ dataDir: dir });
  });

  afterAll(async () => {
    await api?.close();
    await removeDir?.();
  });

  it('prints only a JWT that the running server accepts for every operation', async () => {
    const { stdout, stderr } = await runTokenCli({ PLANTS_DATA_DIR: dir });

    expect(stdout).toMatch(jwtShape);
    expect(stderr).toBe('');
    const token = stdout.trim();
    expect(decodeJwt(token).scope).toBe('plants/read plants/write');
    const created = await createPlant(api, token, '{"id":7,"name":"Aloe"}');
    const headers = { authorization: `Bearer ${token}` };
    const listed = await fetch(`${api.url}/plants`, { headers });
    const deleted = await fetch(`${api.url}/plants/7`, { method: 'DELETE', headers });
    expect([created.status, listed.status, deleted.status]).toStrictEqual([200, 200, 204]);
  });

  it('keeps the signing key readable by its owner only', async () => {
    const { mode } = await stat(signingKeyFile(dir));

    expect(mode & 0o777).toBe(0o600);
  });

  it('gets the token from the running server in memory mode', async () => {
    const memoryApi = await startTestApi();
    const { hostname, port } = new URL(memoryApi.url);

    try {
      const { stdout } = await runTokenCli({
        PLANTS_DATA_DIR: 'memory',
        HOST: hostname,
        PORT: port,
      });

      expect(stdout).toMatch(jwtShape);
      const response = await createPlant(memoryApi, stdout.trim(), '{"id":8,"name":"Sage"}');
      expect(response.status).toBe(200);
    } finally {
      await memoryApi.close();
    }
  });

  it('refuses a FIFO at the signing key on stderr, with exit code 1, instead of hanging', async () => {
    const { dir: fifoDir, remove } = await tempDataDir();
    try {
      await mkdir(join(fifoDir, 'issuer'), { mode: 0o700 });
      await run('mkfifo', ['-m', '600', signingKeyFile(fifoDir)]);

      const failed = runTokenCli({ PLANTS_DATA_DIR: fifoDir });

      await expect(failed).rejects.toMatchObject({
        code: 1,
        stdout: '',
        stderr: expect.stringContaining(`${signingKeyFile(fifoDir)} is not a regular file`),
      });
    } finally {
      await remove();
    }
  });

  it('explains on stderr, with exit code 1, that memory mode needs the server running', async () => {
    const failed = runTokenCli({ PLANTS_DATA_DIR: 'memory', PORT: '1' });

    await expect(failed).rejects.toMatchObject({
      code: 1,
      stdout: '',
      stderr: expect.stringMatching(/npm start/),
    });
  });
});
