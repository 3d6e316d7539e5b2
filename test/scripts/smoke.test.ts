import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { useTestApi } from '../support/local-api-fixture.ts';

const smokeScript = fileURLToPath(new URL('../../scripts/smoke.ts', import.meta.url));
const run = promisify(execFile);

function runSmoke(args: string[]) {
  // process.execPath is the Node 24 that runs vitest, which strips the script's types itself.
  return run(process.execPath, [smokeScript, ...args]);
}

describe('smoke script (npm run smoke)', () => {
  const local = useTestApi();

  it('passes every step against the local API, leaves its plant deleted and exits 0', async () => {
    const { stdout } = await runSmoke(['--url', local.api.url, '--token', local.token]);
    const left = await fetch(`${local.api.url}/plants?limit=100`, {
      headers: { authorization: `Bearer ${local.token}` },
    });

    const lines = stdout.trim().split('\n');
    expect(lines.filter((line) => line.startsWith('PASS '))).toHaveLength(13);
    expect(lines.filter((line) => line.startsWith('FAIL '))).toHaveLength(0);
    const id = /^PASS create plant (\d+): 200 /m.exec(stdout)?.[1];
    expect(stdout).toMatch(/^PASS same id, another name is a conflict: 409 /m);
    expect(stdout).toMatch(/^PASS no token is rejected: 401 /m);
    expect(stdout).toContain(
      `PASS the list holds the plant with its exact id: 200 {"id":${id},"name":"Smoke test fern","tag":"smoke"}`,
    );
    expect(stdout).toMatch(/^PASS delete the plant: 204$/m);
    expect(stdout).toMatch(/^PASS delete it again \(idempotent\): 204$/m);
    expect(stdout).toMatch(
      /^PASS the deleted id takes another name: 200 \{"name":"Smoke test rose"/m,
    );
    expect(stdout).toMatch(/^PASS no token is rejected by list: 401 /m);
    expect(stdout).toMatch(/^PASS no token is rejected by delete: 401 /m);
    expect(await left.json()).toStrictEqual([]);
  });

  it('prints FAIL lines and exits 1 when the token is not accepted', async () => {
    const failed = runSmoke(['--url', local.api.url, '--token', 'not-a-token']);

    await expect(failed).rejects.toMatchObject({
      code: 1,
      stdout: expect.stringMatching(/^FAIL create plant \d+: expected 200, got 401/m),
    });
  });

  it('exits 2 with the usage when --url or --token is missing', async () => {
    const failed = runSmoke(['--url', local.api.url]);

    await expect(failed).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/^Usage: npm run smoke/),
    });
  });
});
