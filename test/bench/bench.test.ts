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
    floor: ColdRequestVariantFigures;
    operations: {
      operation: string;
      variants: Record<'limit' | 'bare' | 'shipped', ColdRequestVariantFigures>;
      shippedOverLimit: number;
      limitOverBare: number;
      shippedOverBare: number;
    }[];
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
        '--webhook-creates=3',
        `--out=${outDir}`,
      ],
      { cwd: projectRoot, timeout: 150_000 },
    );
    expect(stdout).toContain('cold request over TLS');
    expect(stdout).toContain('targets (shipped');
    expect(stdout).toMatch(/^create's 200 -> event at the receiver +-?[\d.]+ +-?[\d.]+$/m);
    const webhook = JSON.parse(await readFile(path.join(outDir, 'webhook-latency.json'), 'utf8'));
    expect(webhook).toMatchObject({ creates: 3, afterAnswer: { medianMs: expect.any(Number) } });
    // The LIMIT ratios come first, the BARE ratios beside them, one row per operation.
    expect(stdout).toMatch(
      /^cold request over TLS +RTT +FLOOR +LIMIT +BARE +shipped +shipped\/LIMIT +LIMIT\/BARE +shipped\/BARE$/m,
    );
    for (const operation of ['create-plant', 'list-plants', 'delete-plant']) {
      expect(stdout).toMatch(
        new RegExp(`^${operation} +0 ms( +\\d+ ms){4}( +\\d+\\.\\d\\d){3}$`, 'm'),
      );
    }

    const report = JSON.parse(await readFile(path.join(outDir, 'latest.json'), 'utf8')) as Report;
    expect(report.coldRequest.map((figure) => figure.rttMs)).toEqual([0]);
    const [coldRequest] = report.coldRequest;
    expect(coldRequest?.operations.map((op) => op.operation)).toEqual([
      'create-plant',
      'list-plants',
      'delete-plant',
    ]);
    const everyVariant = [
      coldRequest?.floor,
      ...(coldRequest?.operations ?? []).flatMap((op) => Object.values(op.variants)),
    ];
    expect(everyVariant).toHaveLength(10);
    for (const figures of everyVariant) {
      expect(figures?.runs).toBe(1);
      if (!figures) continue;
      // Process start to the answer: init, the hand-over of the event, then the first invoke.
      expect(figures.totalMs).toBeGreaterThanOrEqual(figures.initMs + figures.firstInvokeMs - 0.2);
      // Every process spends CPU time to start; a figure of 0 would mean it was never read.
      expect(figures.cpuMs).toBeGreaterThan(0);
    }
    expect(coldRequest?.floor.connections).toBe(0);
    for (const op of coldRequest?.operations ?? []) {
      // Shipped and LIMIT reach both TLS endpoints, the key set early; BARE only DynamoDB.
      for (const variant of [op.variants.shipped, op.variants.limit]) {
        expect(variant.connections).toBe(2);
        expect(variant.keySetMs).toBeGreaterThan(0);
        expect(variant.dynamoDbMs).toBeGreaterThan(0);
        expect(variant.tlsMs).toBeGreaterThan(0);
      }
      expect(op.variants.bare.connections).toBe(1);
      for (const ratio of [op.shippedOverLimit, op.limitOverBare, op.shippedOverBare]) {
        expect(Number.isFinite(ratio) && ratio > 0).toBe(true);
      }
    }
    expect(report.bundles.map((bundle) => bundle.name)).toEqual([
      'floor',
      'limit',
      'bare',
      'shipped',
      'limit-list-plants',
      'bare-list-plants',
      'shipped-list-plants',
      'limit-delete-plant',
      'bare-delete-plant',
      'shipped-delete-plant',
      'shipped-noop-store',
    ]);
    for (const bundle of report.bundles) {
      expect(bundle.bytes).toBeGreaterThan(0);
      expect(bundle.gzipBytes).toBeGreaterThan(0);
    }
    expect(report.cold.map((figure) => figure.id)).toEqual(
      expect.arrayContaining(['floor', 'limit', 'bare', 'shipped']),
    );
    for (const figure of report.cold) {
      expect(figure.runs).toBe(1);
      expect(figure.initMedianMs).toBeGreaterThan(0);
      expect(Number.isFinite(figure.xFloor) && Number.isFinite(figure.xBare)).toBe(true);
    }
    expect(report.warm.map((figure) => figure.bundle)).toEqual([
      'floor',
      'limit',
      'bare',
      'shipped',
      'shipped-noop-store',
    ]);
    for (const figure of report.warm) {
      expect(figure.requests).toBe(20);
      expect(figure.p99Ms).toBeGreaterThanOrEqual(figure.medianMs);
      expect(figure.cpuMicrosPerInvoke).toBeGreaterThan(0);
      expect(figure.maxRssMiB).toBeGreaterThan(0);
    }
    // Cold request at 0 ms (the only RTT run here) for each operation against its LIMIT, then the
    // six import-only and warm targets.
    expect(report.targets.map((target) => target.target).slice(0, 3)).toEqual([
      'cold request, create-plant, RTT 0 ms <= 1.05 x LIMIT',
      'cold request, list-plants, RTT 0 ms <= 1.05 x LIMIT',
      'cold request, delete-plant, RTT 0 ms <= 1.05 x LIMIT',
    ]);
    expect(report.targets).toHaveLength(9);

    const svg = await readFile(path.join(outDir, 'latest.svg'), 'utf8');
    expect(svg).toMatch(/^<svg [^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    expect(svg).toContain('shipped');
  });
});
