// `npm test`: the static checks (`npm run check`: Biome, tsc, Redocly) and the Vitest suite at
// once, since the checks use one core for most of their run and the suite is CPU-bound on the
// other. The checks' output is printed after the suite's, whole; the exit code is non-zero when
// either fails. Arguments go to Vitest (`npm test -- --reporter=json ...`).
import { spawn } from 'node:child_process';

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

const check = new Promise<{ code: number; output: string }>((resolve) => {
  const child = spawn(npm, ['run', '-s', 'check'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk;
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  child.on('close', (code) => resolve({ code: code ?? 1, output }));
});

const suite = new Promise<number>((resolve) => {
  const child = spawn('npx', ['vitest', 'run', ...process.argv.slice(2)], { stdio: 'inherit' });
  child.on('close', (code) => resolve(code ?? 1));
});

const [checked, tested] = await Promise.all([check, suite]);
process.stdout.write(`\n> npm run check (Biome, tsc, Redocly)\n${checked.output}`);
if (checked.code !== 0) console.error(`npm run check failed (exit ${checked.code})`);
process.exitCode = checked.code !== 0 ? checked.code : tested;
