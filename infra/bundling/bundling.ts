import path from 'node:path';
import type { BundlingOptions } from 'aws-cdk-lib/aws-lambda-nodejs';
import { OutputFormat, SourceMapMode } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { BuildOptions } from 'esbuild';

/**
 * The one definition of how the functions are bundled: NodejsFunction gets `cdkBundlingOptions`
 * (the hook `preTrafficCheckBundlingOptions`), tests and benchmarks hand `esbuildBuildOptions`
 * (`preTrafficCheckEsbuildOptions`) to esbuild's JS API. Both derive from the constants below, so
 * what is measured and tested is byte-for-byte what ships.
 */

export const projectRoot = path.resolve(import.meta.dirname, '..', '..');

/** An operation's entry point: `functions/<name>/handler.ts`, exporting `handler`. */
export const functionEntry = (name: string): string =>
  path.join(projectRoot, 'functions', name, 'handler.ts');

/** The BeforeAllowTraffic hook (infra/constructs/pre-traffic-check.ts). */
export const preTrafficCheckEntry = functionEntry('pre-traffic-check');

/** NodejsFunction names an ESM bundle `index.mjs`; the handler string follows from it. */
export const bundleFileName = 'index.mjs';
export const lambdaHandler = 'index.handler';

/** The Lambda runtime `nodejs24.x`: esbuild leaves every Node 24 feature untouched. */
const target = 'node24';

/** `module` first lets esbuild pick ESM builds of dependencies. */
const mainFields = ['module', 'main'];

/**
 * A CommonJS dependency inside an ESM bundle may still call `require` for a Node built-in; ESM has
 * no `require`, so the banner makes one (from the built-in itself, not `node:module`'s facade).
 */
const esmRequireBanner =
  "const require = process.getBuiltinModule('node:module').createRequire(import.meta.url);";

/**
 * Minified names stay minified: a logged stack is mapped to the TypeScript sources, and every
 * error class sets its own `name` ([decision 0118](../../docs/decisions/0118-keep-names-off.md)).
 */
const keepNames = false;

/**
 * `node:http` and `node:timers` resolve to `builtins/node-<name>.ts`, which hand over the built-in
 * itself rather than its ESM facade, whose linking reads every export, getters included
 * ([decision 0003](../../docs/decisions/0003-built-ins-without-esm-facades.md)).
 */
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
  // A linked `.map` beside the bundle, without sources, which a logged stack is mapped with; Node
  // is not asked to read it on every cold start
  // ([decision 0124](../../docs/decisions/0124-stacks-mapped-when-logged.md)).
  sourceMap: true,
  sourceMapMode: SourceMapMode.DEFAULT,
  sourcesContent: false,
  mainFields,
  banner: esmRequireBanner,
  // Bundle everything: the handler imports no `@aws-sdk/*` module, so a stray import is bundled
  // and visible in the asset's source map (shipped-asset.test.ts), not resolved at runtime.
  externalModules: [],
  esbuildArgs: Object.fromEntries(
    Object.entries(alias).map(([from, to]) => [`--alias:${from}`, to]),
  ),
  // esbuild is a devDependency and runs locally: Docker is never needed.
  forceDockerBundling: false,
};

/**
 * The pre-traffic hook runs once per deployment, off the request path: no cold-start shims, and the
 * AWS SDK v3 clients it calls come from the nodejs24.x runtime.
 */
const preTrafficCheckExternalModules = ['@aws-sdk/*'];

export const preTrafficCheckBundlingOptions: BundlingOptions = {
  ...cdkBundlingOptions,
  externalModules: [...preTrafficCheckExternalModules],
  esbuildArgs: {},
};

/** The operations' options for esbuild's JS API: the caller adds `entryPoints` and `outdir`. */
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

/** An operation's bundle for esbuild's JS API, as `cdk synth` builds it. */
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
