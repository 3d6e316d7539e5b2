import { mkdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { build, type Plugin } from 'esbuild';
import {
  bundleFileName,
  createPlantEntry,
  esbuildBuildOptions,
} from '../infra/bundling/bundling.ts';

export type BundleName = 'floor' | 'bare' | 'shipped' | 'shipped-noop-store';

export type BundleSpec = {
  readonly name: BundleName;
  readonly label: string;
  readonly entry: string;
  /** Cold init is measured for bundles that ship or serve as a reference; not for test doubles. */
  readonly cold: boolean;
  /** `dynalite` writes through the bundle's own client; `none` means the store is in-process. */
  readonly store: 'dynalite' | 'none';
};

export type BuiltBundle = Omit<BundleSpec, 'name'> & {
  /** A reference's name, or a swap's (`--swap`). */
  readonly name: string;
  readonly file: string;
  readonly bytes: number;
  readonly gzipBytes: number;
  readonly sourceMapBytes: number;
};

const reference = (file: string) => path.join(import.meta.dirname, 'reference', file);

export const bundleSpecs: readonly BundleSpec[] = [
  { name: 'floor', label: 'FLOOR', entry: reference('floor.ts'), cold: true, store: 'none' },
  {
    name: 'bare',
    label: 'BARE (AWS SDK v3)',
    entry: reference('bare.ts'),
    cold: true,
    store: 'dynalite',
  },
  { name: 'shipped', label: 'shipped', entry: createPlantEntry, cold: true, store: 'dynalite' },
  {
    name: 'shipped-noop-store',
    label: 'shipped, no-op store',
    entry: reference('noop-store.ts'),
    cold: false,
    store: 'none',
  },
];

/**
 * Builds every bundle with the stack's own esbuild options (`infra/bundling.ts`), overriding only
 * the entry point, so the `shipped` bundle is byte for byte what `cdk deploy` uploads.
 */
export async function buildBundles(outDir: string): Promise<BuiltBundle[]> {
  const built: BuiltBundle[] = [];
  for (const spec of bundleSpecs) built.push(await buildOne(outDir, spec));
  return built;
}

/**
 * The shipped bundle with some of its modules replaced (`--swap`): an alternative measured side by
 * side with the code it would replace, in the same rounds.
 */
export type Swap = {
  readonly name: string;
  /** Absolute path of a module of the bundle -> absolute path of the file that replaces it. */
  readonly replacements: ReadonlyMap<string, string>;
};

export function buildSwap(outDir: string, swap: Swap): Promise<BuiltBundle> {
  const plugin: Plugin = {
    name: 'swap',
    setup(build) {
      build.onResolve({ filter: /\.ts$/ }, (args) => {
        const resolved = path.resolve(args.resolveDir, args.path);
        const replacement = swap.replacements.get(resolved);
        return replacement === undefined ? undefined : { path: replacement };
      });
    },
  };
  const spec = {
    name: swap.name,
    label: `swap: ${swap.name}`,
    entry: createPlantEntry,
    cold: true,
    store: 'dynalite',
  } as const;
  return buildOne(outDir, spec, [plugin]);
}

async function buildOne(
  outDir: string,
  spec: Omit<BundleSpec, 'name'> & { readonly name: string },
  plugins: Plugin[] = [],
): Promise<BuiltBundle> {
  const dir = path.join(outDir, spec.name);
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  await build({
    ...esbuildBuildOptions,
    entryPoints: { index: spec.entry },
    outdir: dir,
    logLevel: 'warning',
    plugins,
  });
  const file = path.join(dir, bundleFileName);
  const code = await readFile(file);
  const map = await readFile(`${file}.map`).catch(() => Buffer.alloc(0));
  return {
    ...spec,
    file,
    bytes: code.length,
    gzipBytes: gzipSync(code, { level: 9 }).length,
    sourceMapBytes: map.length,
  };
}
