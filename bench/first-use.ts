import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { esbuildBuildOptions } from '../infra/bundling/bundling.ts';
import { median, percentile, round } from './stats.ts';

/**
 * `node bench/first-use.ts [--runs N] name=entry.ts …`: what one module costs a cold start, apart
 * from the rest of the function. Each entry's default export is an async function that uses the
 * module once, as the first request would. Each entry is bundled with the stack's esbuild options,
 * then imported and called in a fresh `node`, the entries
 * interleaved round by round. Prints, per entry, the medians and quartiles of the milliseconds from
 * process start to the call's end, and of the main thread's CPU time to then, with the difference
 * to the first entry (the baseline) computed round by round. The machine's load average is printed
 * before and after: on a shared machine, compare within one run only.
 */

const args = process.argv.slice(2);
let runs = 31;
const entries: { name: string; file: string }[] = [];
for (let index = 0; index < args.length; index++) {
  const arg = args[index] as string;
  if (arg === '--runs') runs = Number(args[++index]);
  else {
    const [name, file] = arg.split('=');
    if (!name || !file) throw new Error(`expected name=entry.ts, got ${arg}`);
    entries.push({ name, file: path.resolve(file) });
  }
}
if (entries.length < 2 || !Number.isInteger(runs) || runs < 1) {
  throw new Error('usage: node bench/first-use.ts [--runs N] baseline=a.ts candidate=b.ts …');
}

type Sample = { readonly wallMs: number; readonly cpuMs: number };

const load = () =>
  os
    .loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');

const scratch = await mkdtemp(path.join(os.tmpdir(), 'plant-first-use-'));
try {
  const bundles = new Map<string, string>();
  for (const entry of entries) {
    const outdir = path.join(scratch, entry.name);
    const result = await build({
      ...esbuildBuildOptions,
      entryPoints: { index: entry.file },
      outdir,
      logLevel: 'warning',
      metafile: true,
    });
    const [output] = Object.values(result.metafile.outputs).filter((out) => out.entryPoint);
    process.stderr.write(`${entry.name}: ${output?.bytes ?? 0} bytes bundled\n`);
    bundles.set(entry.name, path.join(outdir, 'index.mjs'));
  }

  const once = (bundle: string): Promise<Sample> => {
    const code = `const m=await import(${JSON.stringify(pathToFileURL(bundle).href)});await m.default();const w=performance.now();const c=process.threadCpuUsage();process.stdout.write(JSON.stringify({wallMs:w,cpuMs:(c.user+c.system)/1000}));`;
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, ['--input-type=module', '-e', code], {
        env: { PATH: process.env.PATH, AWS_REGION: 'eu-west-1' },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let out = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        out += chunk;
      });
      child.on('error', reject);
      child.on('close', (status) =>
        status === 0 ? resolve(JSON.parse(out) as Sample) : reject(new Error(`exit ${status}`)),
      );
    });
  };

  const loadBefore = load();
  const samples = new Map<string, Sample[]>(entries.map((entry) => [entry.name, []]));
  for (const entry of entries) await once(bundles.get(entry.name) as string);
  for (let round = 0; round < runs; round++) {
    for (let k = 0; k < entries.length; k++) {
      const { name } = entries[(round + k) % entries.length] as { name: string };
      samples.get(name)?.push(await once(bundles.get(name) as string));
    }
  }

  const base = samples.get(entries[0]?.name ?? '') ?? [];
  const spread = (values: number[]) =>
    `${round(median(values), 1).toFixed(1)} (${round(percentile(values, 25), 1).toFixed(1)} to ${round(percentile(values, 75), 1).toFixed(1)})`;
  const lines = [
    `first use, ${runs} interleaved rounds, fresh node each, load ${loadBefore} -> ${load()}`,
    `${'entry'.padEnd(22)}${'start to used, ms'.padStart(24)}${'CPU ms'.padStart(24)}${'wall - baseline'.padStart(24)}${'CPU - baseline'.padStart(24)}`,
  ];
  for (const entry of entries) {
    const own = samples.get(entry.name) ?? [];
    const delta = (key: keyof Sample) =>
      own.map((sample, index) => sample[key] - (base[index]?.[key] ?? Number.NaN));
    lines.push(
      `${entry.name.padEnd(22)}${spread(own.map((s) => s.wallMs)).padStart(24)}${spread(own.map((s) => s.cpuMs)).padStart(24)}${spread(delta('wallMs')).padStart(24)}${spread(delta('cpuMs')).padStart(24)}`,
    );
  }
  lines.push('  median (p25 to p75); differences are taken round by round');
  process.stdout.write(`${lines.join('\n')}\n`);
} finally {
  await rm(scratch, { recursive: true, force: true });
}
