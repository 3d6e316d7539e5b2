// `npm test`: `npm run check` and Vitest at once: the checks use one core, the suite the rest.
import { spawn } from 'node:child_process';

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

const check = new Promise<{ code: number; output: string }>((resolve) => {
  const child = spawn(npm, ['run', '-s', 'check'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const output: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => output.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => output.push(chunk));
  child.on('close', (code) =>
    resolve({ code: code ?? 1, output: Buffer.concat(output).toString() }),
  );
});

const suite = new Promise<number>((resolve) => {
  // Node's compiled-code cache, on disk: the suite starts hundreds of Node processes and workers
  // that load the same modules, and a run after the first starts them from it.
  const env = { ...process.env, NODE_COMPILE_CACHE: 'node_modules/.cache/node-compile' };
  const child = spawn('npx', ['vitest', 'run', ...process.argv.slice(2)], {
    stdio: 'inherit',
    env,
  });
  child.on('close', (code) => resolve(code ?? 1));
});

const [checked, tested] = await Promise.all([check, suite]);
process.stdout.write(`\n> npm run check (Biome, tsc, Redocly)\n${checked.output}`);
if (checked.code !== 0) console.error(`npm run check failed (exit ${checked.code})`);
process.exitCode = checked.code !== 0 ? checked.code : tested;
