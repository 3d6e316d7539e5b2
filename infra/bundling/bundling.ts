import path from 'node:path';
import type { BundlingOptions } from 'aws-cdk-lib/aws-lambda-nodejs';
import { OutputFormat, SourceMapMode } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { BuildOptions } from 'esbuild';

/** One definition of the bundling, so what is measured and tested is what ships. */

export const projectRoot = path.resolve(import.meta.dirname, '..', '..');

export const functionEntry = (name: string): string =>
  path.join(projectRoot, 'functions', name, 'handler.ts');

export const preTrafficCheckEntry = functionEntry('pre-traffic-check');

/** NodejsFunction names an ESM bundle `index.mjs`; the handler string follows from it. */
export const bundleFileName = 'index.mjs';
export const lambdaHandler = 'index.handler';

const target = 'node24';

const mainFields = ['module', 'main'];

/** ESM has no `require`, which a CommonJS dependency may call for a Node built-in. */
const esmRequireBanner =
  "const require = process.getBuiltinModule('node:module').createRequire(import.meta.url);";

/** Stacks are mapped: [decision 0118](../../docs/decisions/0118-keep-names-off.md). */
const keepNames = false;

/** No ESM facade: [decision 0003](../../docs/decisions/0003-built-ins-without-esm-facades.md). */
const alias = Object.fromEntries(
  ['http', 'timers'].flatMap((name) => {
    const file = path.join(import.meta.dirname, 'builtins', `node-${name}.ts`);
    return [
      [name, file],
      [`node:${name}`, file],
    ];
  }),
);

export const cdkBundlingOptions: BundlingOptions = {
  format: OutputFormat.ESM,
  target,
  minify: true,
  keepNames,
  // [Decision 0124](../../docs/decisions/0124-stacks-mapped-when-logged.md): no sources.
  sourceMap: true,
  sourceMapMode: SourceMapMode.DEFAULT,
  sourcesContent: false,
  mainFields,
  banner: esmRequireBanner,
  // Bundle everything: a stray import shows in the source map, not at runtime.
  externalModules: [],
  esbuildArgs: Object.fromEntries(
    Object.entries(alias).map(([from, to]) => [`--alias:${from}`, to]),
  ),
  forceDockerBundling: false,
};

/** Off the request path: docs/decisions/0050-aws-sdk-in-the-pre-traffic-hook.md */
const preTrafficCheckExternalModules = ['@aws-sdk/*'];

export const preTrafficCheckBundlingOptions: BundlingOptions = {
  ...cdkBundlingOptions,
  externalModules: [...preTrafficCheckExternalModules],
  esbuildArgs: {},
};

export const esbuildBuildOptions: BuildOptions = {
  bundle: true,
  platform: 'node',
  target,
  format: 'esm',
  outExtension: { '.js': '.mjs' },
  minify: true,
  keepNames,
  sourcemap: 'linked',
  sourcesContent: false,
  mainFields,
  banner: { js: esmRequireBanner },
  external: [],
  alias,
};

export const esbuildOptionsFor = (name: string): BuildOptions => ({
  ...esbuildBuildOptions,
  entryPoints: { index: functionEntry(name) },
});

export const preTrafficCheckEsbuildOptions: BuildOptions = {
  ...esbuildBuildOptions,
  entryPoints: { index: preTrafficCheckEntry },
  external: [...preTrafficCheckExternalModules],
  alias: {},
};
