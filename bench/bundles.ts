import { existsSync } from 'node:fs';
import { mkdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { build, type Plugin } from 'esbuild';
import { type OperationName, operations } from '../functions/operations.ts';
import { bundleFileName, esbuildBuildOptions, functionEntry } from '../infra/bundling/bundling.ts';

type BundleRole = 'floor' | 'limit' | 'bare' | 'shipped' | 'shipped-noop-store';

export type BundleSpec = {
  readonly name: string;
  readonly label: string;
  readonly role: BundleRole;
  readonly operation?: OperationName;
  readonly entry: string;
  /** Measured by import-only cold init, and by warm runs (POST /plants: create's bundles only). */
  readonly cold: boolean;
  readonly warm: boolean;
  /** `none`: no store, or one in the bundle's own process. */
  readonly store: 'dynalite' | 'none';
};

export type BuiltBundle = BundleSpec & {
  readonly file: string;
  readonly bytes: number;
  readonly gzipBytes: number;
  readonly sourceMapBytes: number;
  readonly inputs: readonly string[];
};

const reference = (file: string) => path.join(import.meta.dirname, 'reference', file);

export const bundleName = (role: BundleRole, operation: OperationName) =>
  operation === 'create-plant' ? role : `${role}-${operation}`;
/** `limit.ts` and `bare.ts` for create, `limit-get.ts` and `bare-get.ts` for get-plant. */
const referenceFile = (role: 'limit' | 'bare', operation: OperationName) =>
  reference(`${bundleName(role, operation).replace(/-plants?$/, '')}.ts`);
/** Opt-in by writing its LIMIT: an operation without one is measured, "no reference" for ratios. */
export const hasReferences = (operation: OperationName) =>
  existsSync(referenceFile('limit', operation));

export const roleLabel = {
  floor: 'FLOOR',
  limit: 'LIMIT',
  bare: 'BARE (AWS SDK v3)',
  shipped: 'shipped',
} as const;
/** An operation's variants, in the order the tables list them. */
export const comparedRoles = ['limit', 'bare', 'shipped'] as const;

export const bundleSpecs: readonly BundleSpec[] = [
  {
    name: 'floor',
    label: roleLabel.floor,
    role: 'floor',
    entry: reference('floor.ts'),
    cold: true,
    warm: true,
    store: 'none',
  },
  ...operations.flatMap(({ name: operation }) => {
    const create = operation === 'create-plant';
    const roles = hasReferences(operation) ? comparedRoles : (['shipped'] as const);
    return roles.map(
      (role): BundleSpec => ({
        name: bundleName(role, operation),
        label: `${create ? '' : `${operation} `}${roleLabel[role]}`,
        role,
        operation,
        entry: role === 'shipped' ? functionEntry(operation) : referenceFile(role, operation),
        cold: create,
        warm: create,
        store: 'dynalite',
      }),
    );
  }),
  {
    name: 'shipped-noop-store',
    label: 'shipped, no-op store',
    role: 'shipped-noop-store',
    operation: 'create-plant',
    entry: reference('noop-store.ts'),
    cold: false,
    warm: true,
    store: 'none',
  },
];

/** With the stack's own esbuild options, so `shipped` is byte for byte what `cdk deploy` uploads. */
export const buildBundles = (outDir: string): Promise<BuiltBundle[]> =>
  Promise.all(bundleSpecs.map((spec) => buildBundle(outDir, spec)));

/** Create's shipped bundle with some of its modules replaced (`--swap`). */
export type Swap = {
  readonly name: string;
  /** Absolute path of a module -> absolute path of its replacement. */
  readonly replacements: ReadonlyMap<string, string>;
};

export function buildSwap(outDir: string, swap: Swap): Promise<BuiltBundle> {
  const plugin: Plugin = {
    name: 'swap',
    setup(build) {
      build.onResolve({ filter: /\.ts$/ }, (args) => {
        const replacement = swap.replacements.get(path.resolve(args.resolveDir, args.path));
        return replacement === undefined ? undefined : { path: replacement };
      });
    },
  };
  const shipped = bundleSpecs.find(({ name }) => name === 'shipped') as BundleSpec;
  return buildBundle(outDir, { ...shipped, name: swap.name, label: `swap: ${swap.name}` }, [
    plugin,
  ]);
}

export async function buildBundle<Spec extends { readonly name: string; readonly entry: string }>(
  outDir: string,
  spec: Spec,
  plugins: Plugin[] = [],
): Promise<Spec & Omit<BuiltBundle, keyof BundleSpec>> {
  const dir = path.join(outDir, spec.name);
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const { metafile } = await build({
    ...esbuildBuildOptions,
    entryPoints: { index: spec.entry },
    outdir: dir,
    logLevel: 'warning',
    plugins,
    metafile: true,
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
    inputs: Object.keys(metafile.inputs),
  };
}
