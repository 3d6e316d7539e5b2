import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkStepsOf } from '../../functions/checks/runner.ts';
import { checksOf, operations, routeKey } from '../../functions/operations.ts';
import { smoke } from '../../scripts/smoke.ts';
import { withBundledHandlers } from '../support/bundled-handlers.ts';
import { useTestApi } from '../support/local-api-fixture.ts';

const smokeScript = fileURLToPath(new URL('../../scripts/smoke.ts', import.meta.url));

/**
 * `npm run smoke` in a process of its own: what only a process shows, its command line. The other
 * runs call `smoke`, all the command does once its options are read.
 */
function runCommand(args: string[]) {
  // process.execPath is the Node 24 that runs vitest, which strips the script's types itself.
  return promisify(execFile)(process.execPath, [smokeScript, ...args]);
}

/** The command against `url` with `token`, its default timeout: its exit code and what it prints. */
async function runSmoke(url: string, token: string): Promise<{ code: number; stdout: string }> {
  const lines: string[] = [];
  const code = await smoke({ url, token, timeoutMs: 10_000 }, (line) => lines.push(line));
  return { code, stdout: `${lines.join('\n')}\n` };
}

/** An operation's cases, as the runner sends them: its steps bar the fixture's. */
const casesOf = (operation: (typeof operations)[number]) =>
  checkStepsOf(operation, checksOf(operation)).flatMap((step) => ('fixture' in step ? [] : [step]));

describe('smoke script (npm run smoke)', () => {
  const local = useTestApi(withBundledHandlers);
  let passed: Promise<{ code: number; stdout: string }>;

  beforeAll(() => {
    passed = runSmoke(local.api.url, local.token);
    passed.catch(() => undefined);
  });

  it('passes every step against the local API, leaves no plant behind and exits 0', async () => {
    const { code, stdout } = await passed;
    const left = await fetch(`${local.api.url}/plants?limit=100`, {
      headers: { authorization: `Bearer ${local.token}` },
    });

    const lines = stdout.trim().split('\n');
    // Each operation's cases and its sample, the typed client's list, the total.
    const cases = operations.reduce((sum, operation) => sum + casesOf(operation).length, 0);
    expect(lines.filter((line) => line.startsWith('PASS '))).toHaveLength(
      cases + operations.length + 2,
    );
    expect(lines.filter((line) => line.startsWith('FAIL '))).toHaveLength(0);
    expect(lines[0]).toBe(`Smoke test of ${local.api.url}: ${operations.map(routeKey).join(', ')}`);
    expect(stdout).toMatch(
      /^PASS the typed client lists the check plant with its exact id: -?\d+ on page \d+$/m,
    );
    expect(lines.at(-1)).toBe('PASS all steps');
    expect(await left.json()).toStrictEqual([]);
    expect(code).toBe(0);
  });

  it.each(operations.map((operation) => [operation.name, operation] as const))(
    'sends %s its checks, each answered as declared, and its sample about an id no plant has',
    async (_name, operation) => {
      const { stdout } = await passed;
      const route = routeKey(operation);

      for (const testCase of casesOf(operation)) {
        expect(stdout).toContain(`PASS ${route}: ${testCase.name}: ${testCase.expected.status}\n`);
      }
      expect(stdout).toMatch(
        new RegExp(
          `^PASS ${escaped(route)}'s sample, about an id no plant has: ${checksOf(operation).sample.status}\\b`,
          'm',
        ),
      );
    },
  );

  it('prints FAIL lines and exits 1 when the token is not accepted', async () => {
    const failed = await runSmoke(local.api.url, 'not-a-token');

    expect(failed).toMatchObject({
      code: 1,
      stdout: expect.stringMatching(
        /^FAIL GET \/plants\/\{id\}: its checks: AggregateError: Error: the fixture's POST \/plants got 401, not 200/m,
      ),
    });
  });

  it('exits 2 with the usage when --url or --token is missing', async () => {
    const failed = runCommand(['--url', local.api.url]);

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
