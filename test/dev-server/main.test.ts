import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDataDir } from '../support/local-api-fixture.ts';

const mainScript = fileURLToPath(new URL('../../dev-server/main.ts', import.meta.url));

/** Collects stdout until `pattern` appears. */
function waitForOutput(child: ChildProcess, pattern: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (pattern.test(output)) resolve(output);
    });
    child.once('exit', (code) =>
      reject(new Error(`exited with ${code} before ${pattern}:\n${output}`)),
    );
  });
}

describe('npm start (dev-server/main.ts)', () => {
  let removeDir: () => Promise<void>;
  let dir: string;

  beforeAll(async () => {
    ({ dir, remove: removeDir } = await tempDataDir());
  });

  afterAll(async () => {
    await removeDir?.();
  });

  it('prints the URL, the docs URL and a ready curl line, logs a request and the function output, and stops cleanly on SIGTERM', async () => {
    // process.execPath is the Node 24 that runs vitest, which strips the script's types itself.
    const child = spawn(process.execPath, [mainScript], {
      env: { PATH: process.env.PATH ?? '', PORT: '0', PLANTS_DATA_DIR: dir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const banner = await waitForOutput(child, /Ctrl-C/);
    const url = /at (http:\/\/127\.0\.0\.1:\d+)/.exec(banner)?.[1];
    const token = /Authorization: Bearer ([\w.-]+)"/.exec(banner)?.[1];

    const logged = waitForOutput(
      child,
      /^(?=[\s\S]*POST \/plants 200 \d+ms\n)(?=[\s\S]*"outcome":"created")/,
    );
    const response = await fetch(`${url}/plants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: '{"id":1,"name":"Fern","tag":"indoor"}',
    });
    const stopped = waitForOutput(child, /Stopped\./);
    const exit = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');

    expect(banner).toContain(`curl -X POST ${url}/plants`);
    expect(banner).toContain(`API docs (try it in the browser) at ${url}/docs`);
    expect(banner).toContain(dir);
    expect(banner).toMatch(/Client id\s+local-client/);
    expect(response.status).toBe(200);
    // Besides the gateway's line, the function's own access log line, as CloudWatch would get it.
    expect(await logged).toMatch(/^\{"timestamp":.*"message":"request".*"status":200/m);
    await stopped;
    expect(await exit).toBe(0);
  });

  it('keeps a secret of your own off the screen, and warns when other machines can reach it', async () => {
    const secret = 'my-own-secret-4f2a9c1e7b3d5a8f6e2c0d4b';
    const child = spawn(process.execPath, [mainScript], {
      env: {
        PATH: process.env.PATH ?? '',
        HOST: '0.0.0.0',
        PORT: '0',
        PLANTS_DATA_DIR: 'memory',
        PLANTS_CLIENT_SECRET: secret,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exit = new Promise<number | null>((resolve) => child.once('exit', resolve));

    const banner = await waitForOutput(child, /Ctrl-C/);
    child.kill('SIGTERM');

    expect(banner).not.toContain(secret);
    expect(banner).toMatch(/Client secret\s+\(PLANTS_CLIENT_SECRET, not shown\)/);
    expect(banner).toMatch(/Warning: HOST 0\.0\.0\.0 lets other machines reach this API/);
    expect(await exit).toBe(0);
  });

  it('refuses a HOST other machines can reach while the client secret is the published default', async () => {
    const child = spawn(process.execPath, [mainScript], {
      env: { PATH: process.env.PATH ?? '', HOST: '0.0.0.0', PORT: '0', PLANTS_DATA_DIR: 'memory' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });

    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));

    expect(code).toBe(1);
    expect(stderr).toMatch(/Could not start the local API: HOST 0\.0\.0\.0 .*PLANTS_CLIENT_SECRET/);
  });

  it('refuses a HOST other machines can reach while the client secret is short, and says how to make one', async () => {
    const child = spawn(process.execPath, [mainScript], {
      env: {
        PATH: process.env.PATH ?? '',
        HOST: '0.0.0.0',
        PORT: '0',
        PLANTS_DATA_DIR: 'memory',
        PLANTS_CLIENT_SECRET: 'a',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });

    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));

    expect(code).toBe(1);
    expect(stderr).toMatch(/HOST 0\.0\.0\.0 .*shorter than 32 characters/);
    expect(stderr).toContain('randomBytes(32)');
    expect(stderr).not.toMatch(/^\s+at /m);
  });
});
