import { spawn } from 'node:child_process';
import os from 'node:os';

/** Nearest-rank percentile of a sample; `p` in [0, 100]. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] as number;
}

export const median = (values: readonly number[]) => percentile(values, 50);

export const spread = (values: readonly number[], digits: number) => ({
  median: round(median(values), digits),
  p25: round(percentile(values, 25), digits),
  p75: round(percentile(values, 75), digits),
});

export const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;

export const log = (message: string) => process.stderr.write(`${message}\n`);

export const pad = (text: string | number, width: number) => String(text).padStart(width);

export const loadAverage = () => Array.from(os.loadavg(), (load) => load.toFixed(2)).join(' ');

/** `rounds` samples of each item, each round starting one item further on: drift hits all alike. */
export async function interleaved<T, S>(
  rounds: number,
  items: readonly T[],
  measure: (item: T) => Promise<S>,
): Promise<Map<T, S[]>> {
  const samples = new Map(items.map((item): [T, S[]] => [item, []]));
  for (let r = 0; r < rounds; r++) {
    for (let k = 0; k < items.length; k++) {
      const item = items[(r + k) % items.length] as T;
      samples.get(item)?.push(await measure(item));
    }
  }
  return samples;
}

/** A fresh `node` with exactly `env`: its stdout, unless dropped; rejects with its stderr. */
export function runNode(
  label: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  { keepStdout = true, cwd = process.cwd() } = {},
) {
  return new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      if (keepStdout) stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(stdout) : reject(new Error(`${label} exited with ${code}:\n${stderr}`)),
    );
  });
}
