import { execFile } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signingKeyFile } from '../../dev-server/issuer-files.ts';
import type { LocalApi } from '../../dev-server/local-api.ts';
import { localToken } from '../../dev-server/token.ts';
import { client, startTestApi, tempDataDir } from '../support/local-api-fixture.ts';

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

  // That a function takes a token the token module signed is local-api.test.ts's.
  it("prints only a JWT for the client with both scopes, which the running server's issuer vouches for", async () => {
    const { stdout, stderr } = await runTokenCli({ PLANTS_DATA_DIR: dir });

    expect(stdout).toMatch(jwtShape);
    expect(stderr).toBe('');
    const token = stdout.trim();
    expect(decodeJwt(token)).toMatchObject({
      client_id: client.id,
      scope: 'plants/read plants/write',
    });
    expect(await api.issuer.vouchesFor(`Bearer ${token}`)).toBe(true);
  });

  it('keeps the signing key readable by its owner only', async () => {
    const { mode } = await stat(signingKeyFile(dir));

    expect(mode & 0o777).toBe(0o600);
  });

  // The CLI prints what localToken gives, in either mode: the process above shows the printing.
  it('gets the token from the running server in memory mode', async () => {
    const { hostname, port } = new URL(api.url);

    const token = await localToken({
      host: hostname,
      port: Number(port),
      dataDir: undefined,
      client,
    });

    expect(await api.issuer.vouchesFor(`Bearer ${token}`)).toBe(true);
  });

  // A refusal of the key file itself is data-dir.test.ts's (a FIFO, a symlink, a loose mode).
  it('explains on stderr, with exit code 1, that memory mode needs the server running', async () => {
    const failed = runTokenCli({ PLANTS_DATA_DIR: 'memory', PORT: '1' });

    await expect(failed).rejects.toMatchObject({
      code: 1,
      stdout: '',
      stderr: expect.stringMatching(/npm start/),
    });
  });
});
