import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import type { LocalApiOptions } from '../../dev-server/local-api.ts';
import { operations } from '../../functions/operations.ts';
import {
  bundleFileName,
  esbuildBuildOptions,
  functionEntry,
  projectRoot,
} from '../../infra/bundling/bundling.ts';
import { oncePerRun } from './once-per-run.ts';

/**
 * The local API's `handlers`: every operation's handler bundled with the stack's esbuild options,
 * what Lambda runs. A function's worker then loads one file, not the sources' module graph, which
 * is most of what a local API costs. For the files whose subject is a client of the API (the
 * scripts, the typed client, the docs); the dev server's own tests run the sources, as `npm start`
 * does. Bundled once per run of Vitest, by the first file that asks, in one build.
 */
export async function withBundledHandlers(): Promise<Pick<LocalApiOptions, 'handlers'>> {
  const outdir = await oncePerRun('handler-bundles', (outdir) =>
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
