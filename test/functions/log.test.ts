import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { jsonLogger } from '../../functions/log.ts';
import { esbuildBuildOptions } from '../../infra/bundling/bundling.ts';

const execFileAsync = promisify(execFile);

/** What jsonLogger writes to stdout for one call, parsed, with _X_AMZN_TRACE_ID set to `traceId`. */
function written(traceId: string | undefined): unknown[] {
  const chunks: string[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    chunks.push(String(chunk));
    return true;
  });
  vi.stubEnv('_X_AMZN_TRACE_ID', traceId);
  jsonLogger('warn', 'dependency unavailable', { status: 503 });
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
  expect(chunks.join('')).toMatch(/^[^\n]*\n$/);
  return chunks
    .join('')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
}

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
});

describe('jsonLogger', () => {
  it('writes one JSON line: timestamp, level, message and the fields', () => {
    const lines = written(undefined);

    expect(lines).toStrictEqual([
      {
        timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        level: 'warn',
        message: 'dependency unavailable',
        status: 503,
      },
    ]);
  });

  it("adds Lambda's X-Ray trace id when there is one", () => {
    const lines = written('Root=1-67891233-abcdef012345678912345678');

    expect(lines[0]).toMatchObject({ traceId: 'Root=1-67891233-abcdef012345678912345678' });
  });
});

describe('sourceMappedStack', () => {
  let dir: string;

  /** The stack a bundle's error has in a plain `node` (no source maps, unlike this test's runner), and it mapped. */
  const stacksOf = async (outdir: string) => {
    const code = [
      `import { sourceMappedStack } from ${JSON.stringify(pathToFileURL(path.resolve('functions/log.ts')).href)};`,
      `import { fail } from ${JSON.stringify(pathToFileURL(path.join(dir, outdir, 'index.mjs')).href)};`,
      'try { fail(); } catch (error) {',
      '  process.stdout.write(JSON.stringify({ stack: error.stack, mapped: sourceMappedStack(error) }));',
      '}',
    ].join('\n');
    const { stdout } = await execFileAsync(process.execPath, ['--input-type=module', '-e', code], {
      env: { PATH: process.env.PATH },
    });
    return JSON.parse(stdout) as { stack: string; mapped: string };
  };

  // A module bundled as every function is (minified, its map linked beside it, without sources),
  // and the same bundle once more with its map removed.
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'mapped-stack-'));
    const source = path.join(dir, 'thrower.ts');
    await writeFile(
      source,
      ['export function fail(): never {', "  throw new Error('boom');", '}', ''].join('\n'),
    );
    for (const outdir of ['with-map', 'without-map']) {
      const outputDir = path.join(dir, outdir);
      await build({ ...esbuildBuildOptions, entryPoints: { index: source }, outdir: outputDir });
    }
    await rm(path.join(dir, 'without-map', 'index.mjs.map'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("names the TypeScript source's line and column where the stack names the bundle's", async () => {
    const { stack, mapped } = await stacksOf('with-map');

    expect(stack).toMatch(
      /^Error: boom\n {4}at \S+ \(file:\/\/\S+\/with-map\/index\.mjs:\d+:\d+\)\n/,
    );
    expect(mapped).toMatch(/^Error: boom\n {4}at \S+ \((?!\.\.\/)\S*thrower\.ts:2:9\)\n/);
    // The frames outside the bundle stay as they were.
    expect(mapped.split('\n').slice(2)).toEqual(stack.split('\n').slice(2));
  });

  it('leaves a stack as it is where a bundle has no source map', async () => {
    const { stack, mapped } = await stacksOf('without-map');

    expect(stack).toMatch(/\/without-map\/index\.mjs:\d+:\d+/);
    expect(mapped).toBe(stack);
  });
});
