import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { operations, routeKey } from '../../functions/operations.ts';
import { checkPlantTag } from '../../infra/webhook-settings.ts';
import { useTestApi } from '../support/local-api-fixture.ts';

const smokeScript = fileURLToPath(new URL('../../scripts/smoke.ts', import.meta.url));
const run = promisify(execFile);

function runSmoke(args: string[]) {
  // process.execPath is the Node 24 that runs vitest, which strips the script's types itself.
  return run(process.execPath, [smokeScript, ...args]);
}

describe('smoke script (npm run smoke)', () => {
  const local = useTestApi();
  let passed: Promise<string>;

  beforeAll(() => {
    passed = runSmoke(['--url', local.api.url, '--token', local.token]).then((run) => run.stdout);
    passed.catch(() => undefined);
  });

  it('passes every step against the local API, leaves no plant behind and exits 0', async () => {
    const stdout = await passed;
    const left = await fetch(`${local.api.url}/plants?limit=100`, {
      headers: { authorization: `Bearer ${local.token}` },
    });

    const lines = stdout.trim().split('\n');
    // Nine steps of one plant's story, two for each operation, the clean-up, the total.
    expect(lines.filter((line) => line.startsWith('PASS '))).toHaveLength(
      11 + 2 * operations.length,
    );
    expect(lines.filter((line) => line.startsWith('FAIL '))).toHaveLength(0);
    expect(lines[0]).toBe(`Smoke test of ${local.api.url}: ${operations.map(routeKey).join(', ')}`);
    const id = /^PASS create plant (\d+): 200 /m.exec(stdout)?.[1];
    expect(stdout).toMatch(/^PASS same id, another name is a conflict: 409 /m);
    expect(stdout).toContain(
      `PASS the list holds the plant with its exact id: 200 {"id":${id},"name":"Smoke test fern","tag":"${checkPlantTag}"}`,
    );
    expect(stdout).toMatch(/^PASS delete the plant: 204$/m);
    expect(stdout).toMatch(/^PASS delete it again \(idempotent\): 204$/m);
    expect(stdout).toMatch(
      /^PASS the deleted id takes another name: 200 \{"name":"Smoke test rose"/m,
    );
    expect(stdout).toContain(
      `PASS delete every id this run used (clean up): 204 x ${1 + operations.length}\n`,
    );
    expect(await left.json()).toStrictEqual([]);
  });

  it.each(operations.map((operation) => [operation.name, operation] as const))(
    'sends %s its sample without a token (401) and with one (the status it declares)',
    async (_name, operation) => {
      const stdout = await passed;

      expect(stdout).toContain(
        `PASS ${routeKey(operation)} without a token is refused: 401 {"error":401,`,
      );
      expect(stdout).toMatch(
        new RegExp(
          `^PASS ${escaped(routeKey(operation))}'s sample, about an id no plant has: ${operation.sample.status}\\b`,
          'm',
        ),
      );
    },
  );

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

/** Text as a regular expression that matches it exactly. */
function escaped(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
