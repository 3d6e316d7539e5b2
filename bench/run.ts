import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { version as esbuildVersion } from 'esbuild';
import { DevIssuer, issuerPaths } from '../dev-server/dev-issuer.ts';
import { loadOrCreateSigningKey } from '../dev-server/issuer-files.ts';
import {
  checksOf,
  type OperationName,
  operationNamed,
  operations,
} from '../functions/operations.ts';
import {
  type BuiltBundle,
  buildBundles,
  buildSwap,
  bundleName,
  hasReferences,
  type Swap,
} from './bundles.ts';
import { renderChart } from './chart.ts';
import {
  type ColdRequestFigures,
  clientId,
  coldRequestTable,
  gatewayEvent,
  measureColdRequests,
  variantRows,
} from './cold-request.ts';
import { interleaved, loadAverage, median, pad, percentile, round, runNode } from './lab.ts';
import type { WarmJob, WarmResult } from './warm-invoke.ts';
import { reportWebhookLatency } from './webhook-latency.ts';

/** `npm run bench` (docs/performance.md): a benchmark, not a test; it asserts nothing. */
const { values: flags } = parseArgs({
  options: {
    'cold-request-rounds': { type: 'string', default: '9' },
    rtt: { type: 'string', multiple: true, default: ['0', '10'] },
    'cpu-prof-dir': { type: 'string' },
    'cdk-out': { type: 'string' },
    'cold-request-only': { type: 'boolean', default: false },
    'cold-runs': { type: 'string', default: '21' },
    'warm-requests': { type: 'string', default: '3000' },
    'warm-rounds': { type: 'string', default: '3' },
    warmup: { type: 'string', default: '200' },
    out: { type: 'string', default: path.join(import.meta.dirname, 'results') },
    swap: { type: 'string', multiple: true, default: [] },
    operation: { type: 'string', multiple: true, default: operations.map(({ name }) => name) },
    'webhook-creates': { type: 'string', default: '200' },
  },
});

const positive = (name: keyof typeof flags) => {
  const value = Number(flags[name]);
  if (!Number.isInteger(value) || value < 1)
    throw new Error(`--${name} must be a positive integer`);
  return value;
};
const coldRequestRounds = positive('cold-request-rounds');
const rtts = (flags.rtt ?? []).map((value) => {
  const rtt = Number(value);
  if (!Number.isFinite(rtt) || rtt < 0) throw new Error('--rtt must be a number of ms, >= 0');
  return rtt;
});
const operationNames: readonly string[] = operations.map(({ name }) => name);
const measuredOperations = (flags.operation ?? []).map((name) => {
  if (!operationNames.includes(name)) {
    throw new Error(`--operation must be one of ${operationNames.join(', ')}`);
  }
  return name as OperationName;
});
const coldRuns = positive('cold-runs');
const warmRounds = positive('warm-rounds');
const warmRequests = Math.max(positive('warm-requests'), warmRounds);
const warmup = Number(flags.warmup);
const outDir = path.resolve(String(flags.out));
const swaps = (flags.swap ?? []).map((value): Swap => {
  const [name, list] = value.split(/:(.*)/s);
  const pairs = (list ?? '').split(',').map((pair) => pair.split('='));
  if (!name || !/^[\w-]+$/.test(name) || pairs.some((pair) => pair.length !== 2)) {
    throw new Error('--swap must read name:module=replacement[,module=replacement]');
  }
  return {
    name,
    replacements: new Map(
      pairs.map(([from, to]) => [path.resolve(String(from)), path.resolve(String(to))]),
    ),
  };
});

type ColdVariant = { id: string; label: string; bundle: BuiltBundle; nodeOptions: string };

/** dynalite in its own process, so its CPU never lands in a measured handler's figures. */
async function startStore(): Promise<{ endpoint: string; tableName: string; stop(): void }> {
  const child = spawn(process.execPath, [path.join(import.meta.dirname, 'dynalite-process.ts')], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = once(child, 'exit').then(([code]) => {
    throw new Error(`dynalite exited with ${code}`);
  });
  const [line] = await Promise.race([
    once(createInterface({ input: child.stdout }), 'line'),
    exited,
  ]);
  return {
    ...(JSON.parse(line) as { endpoint: string; tableName: string }),
    stop: () => child.stdin.end(),
  };
}

/** Process start (Node's own boot included, as on a new container) to the bundle evaluated. */
async function coldSample(variant: ColdVariant, env: NodeJS.ProcessEnv) {
  const url = pathToFileURL(variant.bundle.file).href;
  const code = `const s=performance.now();await import(${JSON.stringify(url)});const e=performance.now();process.stdout.write(JSON.stringify({initMs:e,importMs:e-s}));`;
  const started = performance.now();
  // No endpoint override: the client resolves AWS's endpoint, as on Lambda, after init.
  const { AWS_ENDPOINT_URL_DYNAMODB: _local, ...coldEnv } = env;
  const stdout = await runNode(`cold ${variant.id}`, ['--input-type=module', '-e', code], {
    ...coldEnv,
    NODE_OPTIONS: variant.nodeOptions,
  });
  return {
    ...(JSON.parse(stdout) as { initMs: number; importMs: number }),
    wallMs: performance.now() - started,
  };
}

async function warmRun(bundle: BuiltBundle, job: WarmJob, env: NodeJS.ProcessEnv) {
  // stdout carries the handler's access log, as on Lambda: drained, not kept.
  const args = [path.join(import.meta.dirname, 'warm-invoke.ts'), JSON.stringify(job)];
  await runNode(`warm ${bundle.name}`, args, env, { keepStdout: false });
  return JSON.parse(await readFile(job.resultFile, 'utf8')) as WarmResult;
}

/** The dev server's issuer, its JWKS on loopback; a token claims the issuer it is minted for. */
async function startIssuer() {
  const key = await loadOrCreateSigningKey(undefined);
  const server = createServer((request, response) => {
    if (request.url !== issuerPaths.jwks) response.statusCode = 404;
    response.end(request.url === issuerPaths.jwks ? JSON.stringify({ keys: [key.publicJwk] }) : '');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const client = { id: clientId, secret: '' };
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    mint: (issuer: string) => new DevIssuer({ issuer, key, client }).mintAccessToken(),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const log = (message: string) => process.stderr.write(`${message}\n`);

const scratch = await mkdtemp(path.join(os.tmpdir(), 'plant-bench-'));
const issuer = await startIssuer();
const store = await startStore();
try {
  log(`building bundles with infra/bundling.ts (esbuild ${esbuildVersion}) ...`);
  const bundles = await buildBundles(path.join(scratch, 'bundles'));
  const swapped: BuiltBundle[] = [];
  for (const swap of swaps) swapped.push(await buildSwap(path.join(scratch, 'swaps'), swap));
  bundles.push(...swapped);
  for (const bundle of bundles) {
    log(`  ${bundle.name}: ${bundle.bytes} bytes, ${bundle.gzipBytes} gzipped`);
  }
  const byName = (name: string) => {
    const bundle = bundles.find((candidate) => candidate.name === name);
    if (!bundle) throw new Error(`no bundle ${name}`);
    return bundle;
  };
  const coldRequests = await measureColdRequests({
    rounds: coldRequestRounds,
    rtts,
    operations: measuredOperations,
    bundles,
    issuer,
    store,
    log,
    swaps: swapped,
    cpuProfileDir: flags['cpu-prof-dir'] && path.resolve(flags['cpu-prof-dir']),
    cdkOut: flags['cdk-out'] && path.resolve(flags['cdk-out']),
  });
  if (flags['cold-request-only']) {
    process.stdout.write(`\n${coldRequestTable(coldRequests).join('\n')}\n\n`);
  } else {
    await measureCreate(bundles, byName, coldRequests);
  }
} finally {
  store.stop();
  await issuer.close();
  await rm(scratch, { recursive: true, force: true });
}

/** POST /plants: import-only cold init, then the warm cost per request; the report. */
async function measureCreate(
  bundles: readonly BuiltBundle[],
  byName: (name: string) => BuiltBundle,
  coldRequests: ColdRequestFigures[],
) {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    PLANTS_TABLE_NAME: store.tableName,
    AUTH_ISSUER: issuer.url,
    AUTH_AUDIENCE: clientId,
    AUTH_SCOPE: 'plants/write',
    AWS_REGION: 'eu-west-1',
    AWS_ACCESS_KEY_ID: 'bench',
    AWS_SECRET_ACCESS_KEY: 'bench',
    AWS_ENDPOINT_URL_DYNAMODB: store.endpoint,
  };
  const coldVariants: ColdVariant[] = bundles
    .filter((bundle) => bundle.cold)
    .map((bundle) => ({ id: bundle.name, label: bundle.label, bundle, nodeOptions: '' }));
  // What Node's own source maps would cost (decision 0124).
  coldVariants.push({
    id: 'shipped-with-source-maps',
    label: 'shipped, --enable-source-maps',
    bundle: byName('shipped'),
    nodeOptions: '--enable-source-maps',
  });
  log(`cold: ${coldRuns} fresh processes per variant, interleaved ...`);
  const cold = await interleaved(coldRuns, coldVariants, (variant) => coldSample(variant, env));

  log(`warm: ${warmRequests} requests per bundle in ${warmRounds} interleaved rounds ...`);
  const perRound = Math.ceil(warmRequests / warmRounds);
  const create = operationNamed('create-plant');
  const event = gatewayEvent(
    create,
    checksOf(create).sample.request('0'),
    await issuer.mint(issuer.url),
  );
  const warmBundles = bundles.filter((bundle) => bundle.warm);
  let idBase = BigInt(Date.now()) * 1000n;
  const warm = await interleaved(warmRounds, warmBundles, (bundle) => {
    const resultFile = path.join(scratch, `warm-${bundle.name}-${idBase}.json`);
    const job = {
      bundleFile: bundle.file,
      requests: perRound,
      warmup,
      event,
      idBase: String(idBase),
      resultFile,
    };
    idBase += BigInt(perRound + warmup + 1);
    return warmRun(bundle, job, env);
  });

  const coldFigures = coldVariants.map((variant) => {
    const samples = cold.get(variant) ?? [];
    const init = samples.map((sample) => sample.initMs);
    return {
      id: variant.id,
      label: variant.label,
      bundle: variant.bundle.name,
      nodeOptions: variant.nodeOptions,
      runs: samples.length,
      initMedianMs: round(median(init)),
      initP25Ms: round(percentile(init, 25)),
      initP75Ms: round(percentile(init, 75)),
      importMedianMs: round(median(samples.map((sample) => sample.importMs))),
      wallMedianMs: round(median(samples.map((sample) => sample.wallMs))),
    };
  });
  const coldOf = (id: string) =>
    coldFigures.find((figure) => figure.id === id)?.initMedianMs ?? Number.NaN;
  const [floorCold, bareCold, shippedCold] = [coldOf('floor'), coldOf('bare'), coldOf('shipped')];

  const warmFigures = warmBundles.map((bundle) => {
    const results = warm.get(bundle) ?? [];
    const latencies = results.flatMap((result) => result.latenciesMs);
    const cpu = results.reduce((sum, result) => sum + result.cpuMicros, 0);
    return {
      bundle: bundle.name,
      label: bundle.label,
      store: bundle.store,
      requests: latencies.length,
      medianMs: round(median(latencies), 3),
      p99Ms: round(percentile(latencies, 99), 3),
      cpuMicrosPerInvoke: round(cpu / latencies.length, 1),
      maxRssMiB: round(Math.max(...results.map((result) => result.maxRssBytes)) / 2 ** 20, 1),
      firstInvokeMedianMs: round(median(results.map((result) => result.firstInvokeMs)), 2),
    };
  });
  const warmOf = (name: string) => {
    const figure = warmFigures.find((candidate) => candidate.bundle === name);
    if (!figure) throw new Error(`no warm figures for ${name}`);
    return figure;
  };
  const [shipped, shippedWarm, bareWarm] = [byName('shipped'), warmOf('shipped'), warmOf('bare')];
  const target = (name: string, value: string, met: boolean) => ({ target: name, value, met });
  const vsBare = (name: string, value: number, bare: number, most: number) =>
    target(`${name} <= ${most} x BARE`, `${round(value / bare)} x BARE`, value <= most * bare);
  const targets = [
    ...coldRequests
      .filter((figure) => figure.rttMs === 0 || figure.rttMs === 10)
      .flatMap((figure) =>
        figure.operations.flatMap(({ operation, shippedOverLimit: overLimit, shippedOverBare }) =>
          // An operation without references has no LIMIT to be held to.
          overLimit === undefined || shippedOverBare === undefined
            ? []
            : [
                target(
                  `cold request, ${operation}, RTT ${figure.rttMs} ms <= 1.05 x LIMIT`,
                  `${overLimit.toFixed(2)} x LIMIT (${shippedOverBare.toFixed(2)} x BARE)`,
                  overLimit <= 1.05,
                ),
              ],
        ),
      ),
    vsBare('cold init', shippedCold, bareCold, 0.6),
    target(
      'cold init within 25 ms of FLOOR',
      `+${round(shippedCold - floorCold, 1)} ms`,
      shippedCold - floorCold <= 25,
    ),
    target(
      'bundle <= 200 KB minified',
      `${round(shipped.bytes / 1000, 1)} KB`,
      shipped.bytes <= 200_000,
    ),
    vsBare(
      'warm CPU per invoke',
      shippedWarm.cpuMicrosPerInvoke,
      bareWarm.cpuMicrosPerInvoke,
      0.85,
    ),
    vsBare('warm p99', shippedWarm.p99Ms, bareWarm.p99Ms, 1.05),
    target(
      'peak RSS <= BARE',
      `${shippedWarm.maxRssMiB} MiB vs ${bareWarm.maxRssMiB} MiB`,
      shippedWarm.maxRssMiB <= bareWarm.maxRssMiB,
    ),
  ];

  const report = {
    generatedAt: new Date().toISOString(),
    machine: {
      node: process.version,
      esbuild: esbuildVersion,
      platform: `${process.platform}-${process.arch}`,
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model ?? 'unknown',
      loadAverage: loadAverage(),
    },
    settings: {
      coldRequestRounds,
      rtts,
      operations: measuredOperations,
      coldRuns,
      warmRequests: perRound * warmRounds,
      warmRounds,
      warmup,
    },
    definitions: {
      coldRequest:
        "fresh process running an operation's cdk synth asset (or its LIMIT, BARE or FLOOR in its place) with the template environment; init = process start to handler imported, firstInvoke = one valid request over TLS at the given RTT; medians, ratios pair by pair within a round",
      coldInit:
        'median over fresh node processes of performance.now() right after `await import(bundle)`: ms from process start to the module evaluated',
      warm: 'sequential invokes in a fresh process per bundle and round; latency per invoke, CPU = process.cpuUsage() delta / invokes, peak RSS = process.resourceUsage().maxRSS',
    },
    bundles: bundles.map(({ entry, cold, warm, store, file, inputs, ...shown }) => shown),
    coldRequest: coldRequests,
    cold: coldFigures.map((figure) => ({
      ...figure,
      xFloor: round(figure.initMedianMs / floorCold),
      xBare: round(figure.initMedianMs / bareCold),
    })),
    warm: warmFigures,
    targets,
  };

  const lines = [
    '',
    `Plant Store API benchmark — node ${process.version}, esbuild ${esbuildVersion}, ${report.machine.cpus} cores, load ${report.machine.loadAverage}`,
    '',
    ...coldRequestTable(coldRequests),
    '',
    `${'import-only cold init'.padEnd(34)}${pad('bytes', 10)}${pad('gzip', 9)}${pad('cold ms', 9)}${pad('x FLOOR', 9)}${pad('x BARE', 8)}`,
    ...report.cold.map((figure) => {
      const bundle = byName(figure.bundle);
      return `${figure.label.padEnd(34)}${pad(bundle.bytes, 10)}${pad(bundle.gzipBytes, 9)}${pad(figure.initMedianMs.toFixed(1), 9)}${pad(figure.xFloor.toFixed(2), 9)}${pad(figure.xBare.toFixed(2), 8)}`;
    }),
    `  cold = median of ${coldRuns} fresh processes each, interleaved; ms from process start to the bundle imported`,
    '',
    `${'bundle bytes (minified)'.padEnd(34)}${pad('LIMIT', 10)}${pad('BARE', 10)}${pad('shipped', 10)}${pad('gzip', 9)}`,
    ...operations.map(({ name }) => {
      const size = (role: 'limit' | 'bare' | 'shipped') => byName(bundleName(role, name));
      const references = hasReferences(name)
        ? `${pad(size('limit').bytes, 10)}${pad(size('bare').bytes, 10)}`
        : pad('no reference', 20);
      return `${name.padEnd(34)}${references}${pad(size('shipped').bytes, 10)}${pad(size('shipped').gzipBytes, 9)}`;
    }),
    '',
    `${'warm, sequential invokes'.padEnd(34)}${pad('store', 9)}${pad('median ms', 11)}${pad('p99 ms', 9)}${pad('CPU µs', 9)}${pad('RSS MiB', 9)}${pad('1st ms', 9)}`,
    ...warmFigures.map(
      (figure) =>
        `${figure.label.padEnd(34)}${pad(figure.store === 'dynalite' ? 'dynalite' : 'none', 9)}${pad(figure.medianMs.toFixed(3), 11)}${pad(figure.p99Ms.toFixed(3), 9)}${pad(figure.cpuMicrosPerInvoke.toFixed(0), 9)}${pad(figure.maxRssMiB.toFixed(1), 9)}${pad(figure.firstInvokeMedianMs.toFixed(1), 9)}`,
    ),
    `  ${report.settings.warmRequests} requests per bundle (${warmRounds} rounds, ${warmup} warm-up each); CPU per invoke; peak RSS; 1st = first invoke after init`,
    '',
    'targets (shipped, ratios from this run):',
    ...targets.map(
      ({ met, target, value }) => `  ${met ? 'met    ' : 'NOT MET'}  ${target.padEnd(56)}${value}`,
    ),
  ];
  process.stdout.write(`${lines.join('\n')}\n\n`);

  const split = (figure: { initMs: number; firstInvokeMs: number }) =>
    `  init ${figure.initMs.toFixed(0)} + first invoke ${figure.firstInvokeMs.toFixed(0)}`;
  const chart = renderChart(
    'Plant Store API: cold request, cold init and warm CPU per request',
    `node ${process.version}, esbuild ${esbuildVersion}, ${report.machine.cpus} cores, ${report.generatedAt.slice(0, 10)}; medians, lower is better`,
    [
      ...coldRequests.map((figure) => ({
        title: `Cold request over TLS, ${figure.rttMs} ms RTT: process start to the first answer`,
        unit: 'ms',
        bars: variantRows(figure).flatMap(({ label, measured, overLimit, shipped }) =>
          measured === undefined
            ? []
            : [
                {
                  label,
                  value: measured.totalMs,
                  note: `${split(measured)}${shipped && overLimit ? `, ${overLimit}x LIMIT` : ''}`,
                  highlight: shipped,
                },
              ],
        ),
      })),
      {
        title: 'Import-only cold init, fresh process to module evaluated',
        unit: 'ms',
        bars: report.cold.map((figure) => ({
          label: figure.label,
          value: figure.initMedianMs,
          note: `  ${figure.xFloor.toFixed(2)}x FLOOR, ${figure.xBare.toFixed(2)}x BARE`,
          highlight: figure.bundle === 'shipped',
        })),
      },
      {
        title: 'Warm CPU per request',
        unit: 'µs',
        bars: warmFigures.map((figure) => ({
          label: `${figure.label}${figure.store === 'dynalite' ? ' + dynalite' : ''}`,
          value: figure.cpuMicrosPerInvoke,
          note: `  p99 ${figure.p99Ms.toFixed(2)} ms`,
          highlight: figure.bundle.startsWith('shipped'),
        })),
      },
    ],
  );
  await mkdir(outDir, { recursive: true });
  await writeFile(path.join(outDir, 'latest.json'), `${JSON.stringify(report, null, 2)}\n`);
  await writeFile(path.join(outDir, 'latest.svg'), chart);
  log(`wrote ${path.join(outDir, 'latest.json')} and latest.svg`);

  const webhookCreates = Number(flags['webhook-creates']);
  if (webhookCreates > 0) await reportWebhookLatency({ creates: webhookCreates, outDir });
}
