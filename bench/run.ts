import { spawn } from 'node:child_process';
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
import { operationNamed, operations } from '../functions/operations.ts';
import { type BuiltBundle, buildBundles, buildSwap, bundleName, hasReferences } from './bundles.ts';
import { renderChart } from './chart.ts';
import {
  type ColdRequestFigures,
  clientId,
  coldRequestTable,
  measureColdRequests,
  sampleEvent,
  variantRows,
} from './cold-request.ts';
import { interleaved, loadAverage, log, median, pad, percentile, round, runNode } from './lab.ts';
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

const atLeast = (least: number, name: keyof typeof flags, value = flags[name], integer = true) => {
  const number = Number(value);
  if (Number.isFinite(number) && number >= least && (!integer || Number.isInteger(number))) {
    return number;
  }
  throw new Error(`--${name} must be ${integer ? 'an integer' : 'a number'} >= ${least}`);
};
const coldRequestRounds = atLeast(1, 'cold-request-rounds');
const rtts = flags.rtt.map((value) => atLeast(0, 'rtt', value, false));
const measuredOperations = flags.operation.map((name) => operationNamed(name).name);
const coldRuns = atLeast(1, 'cold-runs');
const warmRounds = atLeast(1, 'warm-rounds');
const warmRequests = Math.max(atLeast(1, 'warm-requests'), warmRounds);
const warmup = atLeast(0, 'warmup');
const outDir = path.resolve(flags.out);
const swaps = flags.swap.map((value) => {
  const [name, list] = value.split(/:(.*)/s);
  const pairs = (list ?? '').split(',').map((pair) => pair.split('='));
  if (!name || !/^[\w-]+$/.test(name) || pairs.some((pair) => pair.length !== 2)) {
    throw new Error('--swap must read name:module=replacement[,module=replacement]');
  }
  const resolved = pairs.map((pair) => pair.map((file) => path.resolve(file)) as [string, string]);
  return { name, replacements: new Map(resolved) };
});

/** dynalite in its own process, so its CPU never lands in a measured handler's figures. */
async function startStore(): Promise<{ endpoint: string; tableName: string; stop(): void }> {
  const child = spawn(process.execPath, [path.join(import.meta.dirname, 'dynalite-process.ts')], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  for await (const line of createInterface({ input: child.stdout })) {
    return { ...JSON.parse(line), stop: () => child.stdin.end() };
  }
  throw new Error('dynalite exited before it was ready');
}

/** The dev server's issuer, its JWKS on loopback; a token claims the issuer it is minted for. */
async function startIssuer() {
  const key = await loadOrCreateSigningKey(undefined);
  const jwks = JSON.stringify({ keys: [key.publicJwk] });
  const server = createServer((request, response) =>
    request.url === issuerPaths.jwks ? response.end(jwks) : response.writeHead(404).end(),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const client = { id: clientId, secret: '' };
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    mint: (issuer: string) => new DevIssuer({ issuer, key, client }).mintAccessToken(),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const scratch = await mkdtemp(path.join(os.tmpdir(), 'plant-bench-'));
const issuer = await startIssuer();
const store = await startStore();
try {
  log(`building bundles with infra/bundling.ts (esbuild ${esbuildVersion}) ...`);
  const bundles = await buildBundles(path.join(scratch, 'bundles'));
  const swapped = await Promise.all(
    swaps.map((swap) => buildSwap(path.join(scratch, 'swaps'), swap)),
  );
  bundles.push(...swapped);
  for (const { name, bytes, gzipBytes } of bundles) {
    log(`  ${name}: ${bytes} bytes, ${gzipBytes} gzipped`);
  }
  const coldRequests = await measureColdRequests({
    rounds: coldRequestRounds,
    rtts,
    operations: measuredOperations,
    bundles,
    issuer,
    store,
    swaps: swapped,
    cpuProfileDir: flags['cpu-prof-dir'] && path.resolve(flags['cpu-prof-dir']),
    cdkOut: flags['cdk-out'] && path.resolve(flags['cdk-out']),
  });
  if (flags['cold-request-only']) {
    process.stdout.write(`\n${coldRequestTable(coldRequests).join('\n')}\n\n`);
  } else {
    await measureCreate(bundles, coldRequests);
  }
} finally {
  store.stop();
  await issuer.close();
  await rm(scratch, { recursive: true, force: true });
}

/** POST /plants: import-only cold init, then the warm cost per request; the report. */
async function measureCreate(bundles: readonly BuiltBundle[], coldRequests: ColdRequestFigures[]) {
  const byName = (name: string) => {
    const bundle = bundles.find((candidate) => candidate.name === name);
    if (!bundle) throw new Error(`no bundle ${name}`);
    return bundle;
  };
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
  const coldVariants = [
    ...bundles
      .filter((bundle) => bundle.cold)
      .map((bundle) => ({ id: bundle.name, label: bundle.label, bundle, nodeOptions: '' })),
    // What Node's own source maps would cost (decision 0124).
    {
      id: 'shipped-with-source-maps',
      label: 'shipped, --enable-source-maps',
      bundle: byName('shipped'),
      nodeOptions: '--enable-source-maps',
    },
  ];
  log(`cold: ${coldRuns} fresh processes per variant, interleaved ...`);
  // No endpoint override: the client resolves AWS's endpoint, as on Lambda, after init.
  const { AWS_ENDPOINT_URL_DYNAMODB: _local, ...coldEnv } = env;
  // Process start (Node's own boot included, as on a new container) to the bundle evaluated.
  const cold = await interleaved(coldRuns, coldVariants, async ({ id, bundle, nodeOptions }) => {
    const url = JSON.stringify(pathToFileURL(bundle.file).href);
    const code = `const s=performance.now();await import(${url});const e=performance.now();process.stdout.write(JSON.stringify({initMs:e,importMs:e-s}));`;
    const started = performance.now();
    const args = ['--input-type=module', '-e', code];
    const stdout = await runNode(`cold ${id}`, args, { ...coldEnv, NODE_OPTIONS: nodeOptions });
    const times = JSON.parse(stdout) as { initMs: number; importMs: number };
    return { ...times, wallMs: performance.now() - started };
  });

  log(`warm: ${warmRequests} requests per bundle in ${warmRounds} interleaved rounds ...`);
  const perRound = Math.ceil(warmRequests / warmRounds);
  const event = sampleEvent('create-plant', '0', await issuer.mint(issuer.url));
  const warmBundles = bundles.filter((bundle) => bundle.warm);
  let idBase = BigInt(Date.now()) * 1000n;
  const warm = await interleaved(warmRounds, warmBundles, async (bundle) => {
    const resultFile = path.join(scratch, `warm-${bundle.name}-${idBase}.json`);
    const job: WarmJob = {
      bundleFile: bundle.file,
      requests: perRound,
      warmup,
      event,
      idBase: String(idBase),
      resultFile,
    };
    idBase += BigInt(perRound + warmup + 1);
    // stdout carries the handler's access log, as on Lambda: drained, not kept.
    const args = [path.join(import.meta.dirname, 'warm-invoke.ts'), JSON.stringify(job)];
    await runNode(`warm ${bundle.name}`, args, env, { keepStdout: false });
    return JSON.parse(await readFile(resultFile, 'utf8')) as WarmResult;
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
  const warmOf = (name: string) => warmFigures.find((figure) => figure.bundle === name);
  const [ours, bare] = [warmOf('shipped'), warmOf('bare')];
  if (!ours || !bare) throw new Error('no warm figures for shipped or BARE');
  const target = (name: string, value: string, met: boolean) => ({ target: name, value, met });
  const vsBare = (name: string, value: number, bare: number, most: number) =>
    target(`${name} <= ${most} x BARE`, `${round(value / bare)} x BARE`, value <= most * bare);
  const aboveFloor = shippedCold - floorCold;
  const shippedKB = byName('shipped').bytes / 1000;
  const [rss, bareRss] = [ours.maxRssMiB, bare.maxRssMiB];
  const targets = [
    ...coldRequests.flatMap(({ rttMs, operations }) =>
      operations.flatMap(({ operation, shippedOverLimit: overLimit, shippedOverBare: overBare }) =>
        // An operation without references has no LIMIT to be held to.
        (rttMs !== 0 && rttMs !== 10) || overLimit === undefined || overBare === undefined
          ? []
          : target(
              `cold request, ${operation}, RTT ${rttMs} ms <= 1.05 x LIMIT`,
              `${overLimit.toFixed(2)} x LIMIT (${overBare.toFixed(2)} x BARE)`,
              overLimit <= 1.05,
            ),
      ),
    ),
    vsBare('cold init', shippedCold, bareCold, 0.6),
    target('cold init within 25 ms of FLOOR', `+${round(aboveFloor, 1)} ms`, aboveFloor <= 25),
    target('bundle <= 200 KB minified', `${round(shippedKB, 1)} KB`, shippedKB <= 200),
    vsBare('warm CPU per invoke', ours.cpuMicrosPerInvoke, bare.cpuMicrosPerInvoke, 0.85),
    vsBare('warm p99', ours.p99Ms, bare.p99Ms, 1.05),
    target('peak RSS <= BARE', `${rss} MiB vs ${bareRss} MiB`, rss <= bareRss),
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

  const machine = `node ${process.version}, esbuild ${esbuildVersion}, ${report.machine.cpus} cores`;
  const lines = [
    '',
    `Plant Store API benchmark — ${machine}, load ${report.machine.loadAverage}`,
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
      const bytes = (role: 'limit' | 'bare') => pad(byName(bundleName(role, name)).bytes, 10);
      const { bytes: size, gzipBytes } = byName(bundleName('shipped', name));
      const references = hasReferences(name)
        ? `${bytes('limit')}${bytes('bare')}`
        : pad('no reference', 20);
      return `${name.padEnd(34)}${references}${pad(size, 10)}${pad(gzipBytes, 9)}`;
    }),
    '',
    `${'warm, sequential invokes'.padEnd(34)}${pad('store', 9)}${pad('median ms', 11)}${pad('p99 ms', 9)}${pad('CPU µs', 9)}${pad('RSS MiB', 9)}${pad('1st ms', 9)}`,
    ...warmFigures.map(
      (figure) =>
        `${figure.label.padEnd(34)}${pad(figure.store, 9)}${pad(figure.medianMs.toFixed(3), 11)}${pad(figure.p99Ms.toFixed(3), 9)}${pad(figure.cpuMicrosPerInvoke.toFixed(0), 9)}${pad(figure.maxRssMiB.toFixed(1), 9)}${pad(figure.firstInvokeMedianMs.toFixed(1), 9)}`,
    ),
    `  ${report.settings.warmRequests} requests per bundle (${warmRounds} rounds, ${warmup} warm-up each); CPU per invoke; peak RSS; 1st = first invoke after init`,
    '',
    'targets (shipped, ratios from this run):',
    ...targets.map(
      ({ met, target, value }) => `  ${met ? 'met    ' : 'NOT MET'}  ${target.padEnd(56)}${value}`,
    ),
  ];
  process.stdout.write(`${lines.join('\n')}\n\n`);

  const chart = renderChart(
    'Plant Store API: cold request, cold init and warm CPU per request',
    `${machine}, ${report.generatedAt.slice(0, 10)}; medians, lower is better`,
    [
      ...coldRequests.map((figure) => ({
        title: `Cold request over TLS, ${figure.rttMs} ms RTT: process start to the first answer`,
        unit: 'ms',
        bars: variantRows(figure).flatMap(({ label, measured, overLimit, shipped }) =>
          measured === undefined
            ? []
            : {
                label,
                value: measured.totalMs,
                note: `  init ${measured.initMs.toFixed(0)} + first invoke ${measured.firstInvokeMs.toFixed(0)}${shipped && overLimit ? `, ${overLimit}x LIMIT` : ''}`,
                highlight: shipped,
              },
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

  const webhookCreates = atLeast(0, 'webhook-creates');
  if (webhookCreates > 0) await reportWebhookLatency({ creates: webhookCreates, outDir });
}
