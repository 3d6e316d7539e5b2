import { open, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { inject } from 'vitest';
import type { LocalApiOptions } from '../../dev-server/local-api.ts';
import { operations } from '../../functions/operations.ts';
import {
  bundleFileName,
  esbuildBuildOptions,
  functionEntry,
  projectRoot,
} from '../../infra/bundling/bundling.ts';

/**
 * The local API's `handlers`: every operation's handler bundled with the stack's esbuild options,
 * what Lambda runs. A function's worker then loads one file, not the sources' module graph, which
 * is most of what a local API costs. For the files whose subject is a client of the API (the
 * scripts, the typed client, the docs); the dev server's own tests run the sources, as `npm start`
 * does. Bundled once per run of Vitest, by the first file that asks, in one build.
 */
export async function withBundledHandlers(): Promise<Pick<LocalApiOptions, 'handlers'>> {
  const outdir = path.join(inject('runDir'), 'handler-bundles');
  await oncePerRun(outdir, () =>
    build({
      ...esbuildBuildOptions,
      entryPoints: Object.fromEntries(
        operations.map(({ name }) => [`${name}/index`, functionEntry(name)]),
      ),
      outdir,
      absWorkingDir: projectRoot,
      logLevel: 'warning',
    }),
  );
  const url = (name: string) => pathToFileURL(path.join(outdir, name, bundleFileName)).href;
  return { handlers: Object.fromEntries(operations.map(({ name }) => [name, url(name)])) };
}

/** `make` for `target`, by the first test file of the run that asks; the others wait for it. */
async function oncePerRun(target: string, make: () => Promise<unknown>): Promise<void> {
  const done = `${target}.done`;
  const claimed = await open(`${target}.lock`, 'wx').then(
    (handle) => handle.close().then(() => true),
    () => false,
  );
  if (claimed) {
    const failure = await make().then(
      () => '',
      (error: unknown) => String(error),
    );
    await writeFile(`${done}.tmp`, failure);
    await rename(`${done}.tmp`, done);
  }
  for (;;) {
    const failure = await readFile(done, 'utf8').catch(() => undefined);
    if (failure === '') return;
    if (failure !== undefined) throw new Error(`${path.basename(target)} failed: ${failure}`);
    await delay(100);
  }
}
