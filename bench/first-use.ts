import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { buildBundle } from './bundles.ts';
import { interleaved, loadAverage, log, median, percentile, round, runNode } from './lab.ts';

/** `node bench/first-use.ts [--runs N] baseline=a.ts candidate=b.ts …` (docs/performance.md). */
const { values, positionals } = parseArgs({
  options: { runs: { type: 'string', default: '31' } },
  allowPositionals: true,
});
const runs = Number(values.runs);
const entries = positionals.map((arg) => {
  const [name, file] = arg.split('=');
  if (!name || !file) throw new Error(`expected name=entry.ts, got ${arg}`);
  return { name, entry: path.resolve(file) };
});
if (entries.length < 2 || !Number.isInteger(runs) || runs < 1) {
  throw new Error('usage: node bench/first-use.ts [--runs N] baseline=a.ts candidate=b.ts …');
}

type Sample = { readonly wallMs: number; readonly cpuMs: number };

const scratch = await mkdtemp(path.join(os.tmpdir(), 'plant-first-use-'));
try {
  const bundles = new Map<string, string>();
  for (const entry of entries) {
    const { name, file, bytes } = await buildBundle(scratch, entry);
    log(`${name}: ${bytes} bytes bundled`);
    bundles.set(name, file);
  }

  const once = async (name: string): Promise<Sample> => {
    const url = JSON.stringify(pathToFileURL(bundles.get(name) as string).href);
    const code = `const m=await import(${url});await m.default();const w=performance.now();const c=process.threadCpuUsage();process.stdout.write(JSON.stringify({wallMs:w,cpuMs:(c.user+c.system)/1000}));`;
    const env = { PATH: process.env.PATH, AWS_REGION: 'eu-west-1' };
    return JSON.parse(await runNode(name, ['--input-type=module', '-e', code], env)) as Sample;
  };

  const loadBefore = loadAverage();
  const names = [...bundles.keys()];
  for (const name of names) await once(name);
  const samples = await interleaved(runs, names, once);

  const base = samples.get(names[0] ?? '') ?? [];
  const spread = (values: number[]) =>
    `${round(median(values), 1).toFixed(1)} (${round(percentile(values, 25), 1).toFixed(1)} to ${round(percentile(values, 75), 1).toFixed(1)})`;
  const lines = [
    `first use, ${runs} interleaved rounds, fresh node each, load ${loadBefore} -> ${loadAverage()}`,
    `${'entry'.padEnd(22)}${'start to used, ms'.padStart(24)}${'CPU ms'.padStart(24)}${'wall - baseline'.padStart(24)}${'CPU - baseline'.padStart(24)}`,
  ];
  for (const name of names) {
    const own = samples.get(name) ?? [];
    const delta = (key: keyof Sample) =>
      own.map((sample, index) => sample[key] - (base[index]?.[key] ?? Number.NaN));
    lines.push(
      `${name.padEnd(22)}${spread(own.map((s) => s.wallMs)).padStart(24)}${spread(own.map((s) => s.cpuMs)).padStart(24)}${spread(delta('wallMs')).padStart(24)}${spread(delta('cpuMs')).padStart(24)}`,
    );
  }
  lines.push('  median (p25 to p75); differences are taken round by round');
  process.stdout.write(`${lines.join('\n')}\n`);
} finally {
  await rm(scratch, { recursive: true, force: true });
}
