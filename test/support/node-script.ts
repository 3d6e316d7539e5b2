import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const repositoryFile = (path: string) => fileURLToPath(new URL(`../../${path}`, import.meta.url));

export interface ScriptProcess {
  readonly child: ChildProcess;
  /** Everything written to stdout so far. */
  stdout(): string;
  stderr(): string;
  /** Resolves with stdout once `pattern` matches it; rejects if the process exits first. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** Resolves with the exit code (null when killed by a signal). */
  readonly exited: Promise<number | null>;
}

/**
 * One of the project's scripts (`npm start`'s dev-server/main.ts, `npm run webhook:listen`'s
 * scripts/webhook-listen.ts) in a process of its own, run by the Node 24 that runs the tests, with
 * `env` and PATH as its whole environment.
 */
export function runScript(
  path: string,
  env: Readonly<Record<string, string>>,
  args: readonly string[] = [],
): ScriptProcess {
  const child = spawn(process.execPath, [repositoryFile(path), ...args], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const listeners = new Set<() => void>();
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString();
    for (const listener of listeners) listener();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    err += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    waitFor(pattern, timeoutMs = 50_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (!pattern.test(out)) return;
          done();
          resolve(out);
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`no ${pattern} within ${timeoutMs} ms:\n${out}\n${err}`));
        }, timeoutMs);
        const done = () => {
          clearTimeout(timer);
          listeners.delete(check);
        };
        listeners.add(check);
        exited.then((code) => {
          if (!listeners.has(check)) return;
          done();
          reject(new Error(`exited with ${code} before ${pattern}:\n${out}\n${err}`));
        });
        check();
      });
    },
  };
}

/**
 * `npm start` on a free port with `env`, once its banner is out: the URL and token the banner
 * prints, and a create through them.
 */
export async function npmStart(env: Readonly<Record<string, string>>) {
  const server = runScript('dev-server/main.ts', { PORT: '0', ...env });
  // A server whose banner never comes is stopped here: the caller gets nothing to stop.
  const banner = await server.waitFor(/Ctrl-C stops it/).catch((error: unknown) => {
    server.child.kill('SIGTERM');
    throw error;
  });
  const url = /at (http:\/\/127\.0\.0\.1:\d+)/.exec(banner)?.[1] ?? '';
  const token = /Authorization: Bearer ([\w.-]+)"/.exec(banner)?.[1] ?? '';
  const create = (body: string) =>
    fetch(`${url}/plants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body,
    });
  return { server, banner, url, create };
}
