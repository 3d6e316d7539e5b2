import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleName, hasReferences } from '../../bench/bundles.ts';
import { operations } from '../../functions/operations.ts';
import { sharedAssembly, sharedAssemblyTimeoutMs } from '../support/shared-assembly.ts';

const run = promisify(execFile);
const projectRoot = path.resolve(import.meta.dirname, '..', '..');
/** One operation is enough to keep the lab from rotting: every operation runs the same code. */
const operationNames = operations.slice(0, 1).map(({ name }) => name);
/** The operations with a LIMIT and a BARE: the lab is opt-in. */
const referenced: readonly string[] = operationNames.filter(hasReferences);

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
      variants: { shipped: ColdRequestVariantFigures } & {
        [variant in 'limit' | 'bare']?: ColdRequestVariantFigures;
      };
      shippedOverLimit?: number;
      limitOverBare?: number;
      shippedOverBare?: number;
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

type Run = { readonly stdout: string; readonly report: Report };

/** Runs the real benchmark with tiny counts so it cannot rot; it asserts shape, never timing. */
describe('npm run bench', () => {
  let outDir = '';
  let bench: Promise<Run>;
  const read = (file: string) => readFile(path.join(outDir, file), 'utf8');

  beforeAll(async () => {
    outDir = await mkdtemp(path.join(os.tmpdir(), 'bench-smoke-'));
    // Awaited by the tests, which allow for the shared synth as well as the run.
    bench = sharedAssembly()
      .then((assembly) =>
        run(
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
            ...operationNames.map((name) => `--operation=${name}`),
            `--cdk-out=${assembly.outdir}`,
            `--out=${outDir}`,
          ],
          { cwd: projectRoot, timeout: 150_000 },
        ),
      )
      .then(async ({ stdout }) => ({
        stdout,
        report: JSON.parse(await read('latest.json')) as Report,
      }));
    bench.catch(() => undefined);
  });
  afterAll(async () => {
    await bench?.catch(() => undefined);
    if (outDir) await rm(outDir, { recursive: true, force: true });
  });

  it('builds every bundle, measures each, and writes the JSON and the chart', {
    timeout: sharedAssemblyTimeoutMs + 150_000,
  }, async () => {
    const { stdout, report } = await bench;

    expect(stdout).toContain('cold request over TLS');
    expect(stdout).toContain('targets (shipped');
    expect(stdout).toMatch(/^create's 200 -> event at the receiver +-?[\d.]+ +-?[\d.]+$/m);
    // Each create timed from its request and its 200 to its event at the receiver, under npm start.
    const webhook = JSON.parse(await read('webhook-latency.json')) as Record<
      'afterAnswer' | 'afterRequest' | 'createMs',
      { medianMs: number; p99Ms: number }
    >;
    expect(webhook).toMatchObject({ creates: 3 });
    for (const figures of [webhook.afterAnswer, webhook.afterRequest, webhook.createMs]) {
      expect(Number.isFinite(figures.medianMs)).toBe(true);
      expect(figures.p99Ms).toBeGreaterThanOrEqual(figures.medianMs);
    }
    expect(webhook.afterRequest.medianMs).toBeGreaterThan(0);
    // The LIMIT ratios come first, the BARE ratios beside them, one row per operation.
    expect(stdout).toMatch(
      /^cold request over TLS +RTT +FLOOR +LIMIT +BARE +shipped +shipped\/LIMIT +LIMIT\/BARE +shipped\/BARE$/m,
    );

    expect(report.coldRequest.map((figure) => figure.rttMs)).toEqual([0]);
    const [coldRequest] = report.coldRequest;
    expect(coldRequest?.operations.map((op) => op.operation)).toEqual(operationNames);
    expect(coldRequest?.floor.runs).toBe(1);
    expect(coldRequest?.floor.connections).toBe(0);
    expect(report.bundles.map((bundle) => bundle.name)).toEqual([
      'floor',
      ...operations
        .map(({ name }) => name)
        .flatMap((name) =>
          (hasReferences(name)
            ? (['limit', 'bare', 'shipped'] as const)
            : (['shipped'] as const)
          ).map((role) => bundleName(role, name)),
        ),
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
    expect(report.targets.map((target) => target.target).slice(0, referenced.length)).toEqual(
      referenced.map((name) => `cold request, ${name}, RTT 0 ms <= 1.05 x LIMIT`),
    );
    expect(report.targets).toHaveLength(referenced.length + 6);

    const svg = await read('latest.svg');
    expect(svg).toMatch(/^<svg [^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    expect(svg).toContain('shipped');
  });

  it.each(operationNames)(
    'measures %s\'s cold request: its shipped asset, and its LIMIT and BARE or "no reference"',
    { timeout: sharedAssemblyTimeoutMs + 150_000 },
    async (name) => {
      const { stdout, report } = await bench;
      const op = report.coldRequest[0]?.operations.find(({ operation }) => operation === name);
      const { shipped, limit, bare } = op?.variants ?? {};

      const row = hasReferences(name)
        ? `^${name} +0 ms( +\\d+ ms){4}( +\\d+\\.\\d\\d){3}$`
        : `^${name} +0 ms +\\d+ ms +no reference +\\d+ ms$`;
      expect(stdout).toMatch(new RegExp(row, 'm'));
      for (const figures of [shipped, limit, bare].filter((figure) => figure !== undefined)) {
        expect(figures.runs).toBe(1);
        // Process start to the answer: init, the hand-over of the event, then the first invoke.
        expect(figures.totalMs).toBeGreaterThanOrEqual(
          figures.initMs + figures.firstInvokeMs - 0.2,
        );
        // Every process spends CPU time to start; a figure of 0 would mean it was never read.
        expect(figures.cpuMs).toBeGreaterThan(0);
      }
      // Shipped and LIMIT reach both TLS endpoints, the key set early; BARE only DynamoDB.
      for (const variant of [shipped, limit].filter((figure) => figure !== undefined)) {
        expect(variant.connections).toBe(2);
        expect(variant.keySetMs).toBeGreaterThan(0);
        expect(variant.dynamoDbMs).toBeGreaterThan(0);
        expect(variant.tlsMs).toBeGreaterThan(0);
      }
      const ratios = [op?.shippedOverLimit, op?.limitOverBare, op?.shippedOverBare];
      if (!hasReferences(name)) {
        expect({ limit, bare, ratios }).toStrictEqual({
          limit: undefined,
          bare: undefined,
          ratios: [undefined, undefined, undefined],
        });
        return;
      }
      expect(bare?.connections).toBe(1);
      for (const ratio of ratios) expect(Number.isFinite(ratio) && (ratio ?? 0) > 0).toBe(true);
    },
  );
});
