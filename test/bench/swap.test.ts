import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSwap } from '../../bench/bundles.ts';

const run = promisify(execFile);
const projectRoot = path.resolve(import.meta.dirname, '..', '..');

let scratch = '';
beforeAll(async () => {
  scratch = await mkdtemp(path.join(os.tmpdir(), 'bench-swap-'));
});
afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe('buildSwap', () => {
  it('bundles the shipped handler with the named module replaced, and nothing else changed', async () => {
    const replacement = path.join(scratch, 'metrics.ts');
    const original = path.join(projectRoot, 'functions', 'http', 'request-metrics.ts');
    const source = await readFile(original, 'utf8');
    await writeFile(
      replacement,
      source
        .replaceAll("'../auth/", `'${path.join(projectRoot, 'functions', 'auth')}/`)
        .replace("'PlantStore'", "'SwappedNamespace'"),
    );

    const swapped = await buildSwap(path.join(scratch, 'out'), {
      name: 'renamed',
      replacements: new Map([[original, replacement]]),
    });

    const code = await readFile(swapped.file, 'utf8');
    expect(code).toContain('SwappedNamespace');
    expect(code).not.toContain('"PlantStore"');
    expect(code).toContain('DynamoDB_20120810');
    expect(swapped).toMatchObject({ name: 'renamed', cold: true, store: 'dynalite' });
  });
});

describe('bench/first-use.ts', () => {
  it('measures each entry in fresh processes and reports the difference to the first', {
    timeout: 60_000,
  }, async () => {
    const empty = path.join(scratch, 'empty.ts');
    const busy = path.join(scratch, 'busy.ts');
    await writeFile(empty, 'export default async () => {};\n');
    await writeFile(
      busy,
      [
        'const cpuMs = () => { const { user, system } = process.threadCpuUsage(); return (user + system) / 1000; };',
        'export default async () => { const end = cpuMs() + 30; while (cpuMs() < end); };',
        '',
      ].join('\n'),
    );

    const { stdout } = await run(
      process.execPath,
      [
        path.join(projectRoot, 'bench', 'first-use.ts'),
        '--runs',
        '3',
        `empty=${empty}`,
        `busy=${busy}`,
      ],
      { cwd: projectRoot },
    );

    const row = (name: string) =>
      stdout
        .split('\n')
        .find((line) => line.startsWith(name))
        ?.trim()
        .split(/\s+/);
    expect(stdout).toMatch(/^first use, 3 interleaved rounds, .* load [\d.]+/);
    expect(row('empty')?.slice(-8)).toEqual([
      '0.0',
      '(0.0',
      'to',
      '0.0)',
      '0.0',
      '(0.0',
      'to',
      '0.0)',
    ]);
    // The busy entry spins for 30 ms of the main thread's CPU time: its CPU difference says so.
    // A machine running two suites at once reads part of it as noise, hence the margin: the
    // empty entry's difference is 0.0, so any clear difference shows the spin was measured.
    const cpuDifference = Number(row('busy')?.at(-4));
    expect(cpuDifference).toBeGreaterThan(10);
  });
});
