import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import packageJson from '../../package.json' with { type: 'json' };

const script = 'scripts/check-node-version.cjs';
const repository = fileURLToPath(new URL('../../', import.meta.url));
const { nodeVersionProblem } = createRequire(import.meta.url)(`../../${script}`) as {
  nodeVersionProblem: (version: string, execPath: string) => string | undefined;
};

/** The check in a process of its own, on the tests' Node, made to report `version` when given. */
async function runCheck(version?: string) {
  const fake = `data:text/javascript,Object.defineProperty(process.versions,'node',{value:'${version}'})`;
  const args = version === undefined ? [script] : ['--import', fake, script];
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, args, {
      cwd: repository,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const { code, stdout, stderr } = error as { code: number; stdout: string; stderr: string };
    return { code, stdout, stderr };
  }
}

describe('scripts/check-node-version.cjs', () => {
  it('names the Node it needs, the one it found and the fix, for an older Node', () => {
    const problem = nodeVersionProblem('20.20.2', '/usr/bin/node');

    expect(problem).toMatch(
      /^This project needs Node 24 or newer, but \/usr\/bin\/node is Node 20\.20\.2\. /,
    );
    expect(problem).toContain('npm ci --ignore-scripts, or ignore-scripts=true in an npmrc');
    expect(problem).toContain('run `npm rebuild node --ignore-scripts=false`');
  });

  it.each(['24.0.0', '24.21.0', '25.1.0'])('lets Node %s run the scripts', (version) => {
    expect(nodeVersionProblem(version, '/opt/node/bin/node')).toBeUndefined();
  });

  it('exits 1 with the problem as one line on stderr', async () => {
    const run = await runCheck('20.20.2');

    expect(run).toStrictEqual({
      code: 1,
      stdout: '',
      stderr: `${nodeVersionProblem('20.20.2', process.execPath)}\n`,
    });
  });

  it('passes quietly on the Node the project installs', async () => {
    const run = await runCheck();

    expect(run).toStrictEqual({ code: 0, stdout: '', stderr: '' });
  });

  it('runs first in every npm script that runs a TypeScript file with node', () => {
    const scripts = Object.entries(packageJson.scripts);
    const runningTypeScript = scripts.filter(([, line]) => /(?:^|&& )node [^&]*\.ts\b/.test(line));
    const unchecked = runningTypeScript.filter(
      ([, line]) => !line.startsWith(`node ${script} && `),
    );

    expect(runningTypeScript.map(([name]) => name)).toContain('start');
    expect(unchecked).toStrictEqual([]);
  });
});
