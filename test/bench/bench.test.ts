import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const projectRoot = path.resolve(import.meta.dirname, '..', '..');

type ColdRequestVariantFigures = {
  runs: number;
  initMs: number;
  firstInvokeMs: number;
  totalMs: number;
  cpuMs: number;
  connections: number;
  tlsMs: number;
  keySetMs: number;
  dynamoDbMs: number;
};

type Report = {
  coldRequest: {
    rttMs: number;
    variants: Record<'floor' | 'bare' | 'shipped', ColdRequestVariantFigures>;
    shippedOverBare: number;
  }[];
  bundles: { name: string; bytes: number; gzipBytes: number }[];
  cold: { id: string; runs: number; initMedianMs: number; xFloor: number; xBare: number }[];
  warm: {
    bundle: string;
    requests: number;
    medianMs: number;
    p99Ms: number;
    cpuMicrosPerInvoke: number;
    maxRssMiB: number;
  }[];
  targets: { target: string; met: boolean }[];
};

/** Runs the real benchmark with tiny counts so it cannot rot; it asserts shape, never timing. */
describe('npm run bench', () => {
  let outDir = '';
  afterAll(async () => {
    if (outDir) await rm(outDir, { recursive: true, force: true });
  });

  it('builds every bundle, measures each, and writes the JSON and the chart', {
    timeout: 180_000,
  }, async () => {
    outDir = await mkdtemp(path.join(os.tmpdir(), 'bench-smoke-'));
    const { stdout } = await run(
      process.execPath,
      [
        path.join(projectRoot, 'bench', 'run.ts'),
        '--cold-request-rounds=1',
        '--rtt=0',
        '--cold-runs=1',
        '--warm-requests=20',
        '--warm-rounds=1',
        '--warmup=2',
        `--out=${outDir}`,
      ],
      { cwd: projectRoot, timeout: 150_000 },
    );
    expect(stdout).toContain('cold request over TLS');
    expect(stdout).toContain('targets (shipped');

    const report = JSON.parse(await readFile(path.join(outDir, 'latest.json'), 'utf8')) as Report;
    expect(report.coldRequest.map((figure) => figure.rttMs)).toEqual([0]);
    const [coldRequest] = report.coldRequest;
    for (const figures of Object.values(coldRequest?.variants ?? {})) {
      expect(figures.runs).toBe(1);
      // Process start to the answer: init, the hand-over of the event, then the first invoke.
      expect(figures.totalMs).toBeGreaterThanOrEqual(figures.initMs + figures.firstInvokeMs - 0.2);
      // Every process spends CPU time to start; a figure of 0 would mean it was never read.
      expect(figures.cpuMs).toBeGreaterThan(0);
    }
    // The shipped asset reached both TLS endpoints; BARE only DynamoDB; FLOOR nothing.
    expect(coldRequest?.variants.shipped.connections).toBe(2);
    expect(coldRequest?.variants.shipped.keySetMs).toBeGreaterThan(0);
    expect(coldRequest?.variants.shipped.dynamoDbMs).toBeGreaterThan(0);
    expect(coldRequest?.variants.shipped.tlsMs).toBeGreaterThan(0);
    expect(coldRequest?.variants.bare.connections).toBe(1);
    expect(coldRequest?.variants.floor.connections).toBe(0);
    expect(Number.isFinite(coldRequest?.shippedOverBare)).toBe(true);
    const names = ['floor', 'bare', 'shipped', 'shipped-noop-store'];
    expect(report.bundles.map((bundle) => bundle.name)).toEqual(names);
    for (const bundle of report.bundles) {
      expect(bundle.bytes).toBeGreaterThan(0);
      expect(bundle.gzipBytes).toBeGreaterThan(0);
    }
    expect(report.cold.map((figure) => figure.id)).toEqual(
      expect.arrayContaining(['floor', 'bare', 'shipped']),
    );
    for (const figure of report.cold) {
      expect(figure.runs).toBe(1);
      expect(figure.initMedianMs).toBeGreaterThan(0);
      expect(Number.isFinite(figure.xFloor) && Number.isFinite(figure.xBare)).toBe(true);
    }
    expect(report.warm.map((figure) => figure.bundle)).toEqual(names);
    for (const figure of report.warm) {
      expect(figure.requests).toBe(20);
      expect(figure.p99Ms).toBeGreaterThanOrEqual(figure.medianMs);
      expect(figure.cpuMicrosPerInvoke).toBeGreaterThan(0);
      expect(figure.maxRssMiB).toBeGreaterThan(0);
    }
    // Cold request at 0 ms (the only RTT run here), then the six import-only and warm targets.
    expect(report.targets).toHaveLength(7);

    const svg = await readFile(path.join(outDir, 'latest.svg'), 'utf8');
    expect(svg).toMatch(/^<svg [^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    expect(svg).toContain('shipped');
  });
});
