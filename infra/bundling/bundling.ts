import path from 'node:path';
import type { BundlingOptions } from 'aws-cdk-lib/aws-lambda-nodejs';
import { OutputFormat, SourceMapMode } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { BuildOptions } from 'esbuild';

/**
 * The one definition of how the functions are bundled. The stack hands `cdkBundlingOptions` (and
 * the pre-traffic hook's `preTrafficCheckBundlingOptions`) to NodejsFunction; tests and
 * benchmarks hand `esbuildBuildOptions` (`preTrafficCheckEsbuildOptions`) to esbuild's JS API.
 * Both are derived from the constants below, so what is measured and tested is byte-for-byte what
 * ships.
 */

export const projectRoot = path.resolve(import.meta.dirname, '..', '..');

/** An operation's entry point: `functions/<name>/handler.ts`, exporting `handler`. */
export const functionEntry = (name: string): string =>
  path.join(projectRoot, 'functions', name, 'handler.ts');

/** The BeforeAllowTraffic hook (infra/constructs/pre-traffic-check.ts). */
export const preTrafficCheckEntry = path.join(
  projectRoot,
  'functions',
  'pre-traffic-check',
  'handler.ts',
);

/** NodejsFunction names an ESM bundle `index.mjs`; the handler string follows from it. */
export const bundleFileName = 'index.mjs';
export const lambdaHandler = 'index.handler';

/** Matches the Lambda runtime `nodejs24.x`, so esbuild leaves every Node 24 feature untouched. */
const target = 'node24';

/** ESM because the handler and its dependencies are ESM; `module` first lets esbuild pick ESM builds of deps. */
const mainFields = ['module', 'main'];

/**
 * A CommonJS dependency inside an ESM bundle may still call `require` for a Node built-in; ESM has
 * no `require`, so the banner makes one (from the built-in itself, not `node:module`'s facade).
 */
const esmRequireBanner =
  "const require = process.getBuiltinModule('node:module').createRequire(import.meta.url);";

/**
 * Bundle everything. The handler talks to DynamoDB through its own small HTTP client, so no
 * `@aws-sdk/*` module is imported at all; the runtime's copy of the SDK would be dead weight either
 * way. An empty list (instead of NodejsFunction's default `@aws-sdk/*`) means a stray SDK import
 * is bundled and visible in the asset's source map (checked by test/infra/shipped-asset.test.ts)
 * rather than silently resolved at runtime.
 */
const externalModules: readonly string[] = [];

/**
 * Minified names stay minified: a logged stack is mapped to the TypeScript sources
 * (`sourceMappedStack` in functions/log.ts), and every error class sets its own `name`; keeping
 * names would cost every cold start a `__name` call per function and class
 * ([decision 0118](../../docs/decisions/0118-keep-names-off.md)).
 */
const keepNames = false;

/**
 * `node:http` and `node:timers` imports resolve to `infra/bundling/builtins/node-<name>.ts`, which hand over
 * the built-in itself (`process.getBuiltinModule`) rather than its ESM facade: a facade reads
 * every export of the module when it is linked, getters included, and `node:http`'s `WebSocket`
 * loads undici on every cold start ([decision 0003](../../docs/decisions/0003-built-ins-without-esm-facades.md)). Each file exports only names a
 * bundle imports; a new one fails the build. The function's own modules take `crypto`, `https`
 * and `net` the same way, in their source.
 */
const builtins = ['http', 'timers'];
const alias = Object.fromEntries(
  builtins.flatMap((name) => {
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
  // A linked `.map` beside the bundle, without sources: what `sourceMappedStack` maps a logged
  // stack with. Node itself is not asked to read it (no `--enable-source-maps`): it would on every
  // cold start ([decision 0124](../../docs/decisions/0124-stacks-mapped-when-logged.md)).
  sourceMap: true,
  sourceMapMode: SourceMapMode.DEFAULT,
  sourcesContent: false,
  mainFields,
  banner: esmRequireBanner,
  externalModules: [...externalModules],
  esbuildArgs: Object.fromEntries(
    Object.entries(alias).map(([from, to]) => [`--alias:${from}`, to]),
  ),
  // Docker is never needed: esbuild is a devDependency and runs locally in CI and on laptops.
  forceDockerBundling: false,
};

/**
 * The pre-traffic hook runs once per deployment, off the request path: no cold-start shims, and the
 * AWS SDK v3 clients it calls (Lambda, CodeDeploy, Cognito) come from the nodejs24.x runtime.
 */
const preTrafficCheckExternalModules: readonly string[] = ['@aws-sdk/*'];

/** The operations' options without their cold-start shims, and with the SDK left to the runtime. */
export const preTrafficCheckBundlingOptions: BundlingOptions = {
  ...cdkBundlingOptions,
  externalModules: [...preTrafficCheckExternalModules],
  esbuildArgs: {},
};

/**
 * The operations' bundle options for esbuild's JS API, without an entry: the caller adds
 * `entryPoints: { index: ... }` and `outdir`, and gets `outdir/index.mjs`. An operation's own
 * bundle is `esbuildOptionsFor(name)`.
 */
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
  external: [...externalModules],
  alias,
};

/** An operation's bundle for esbuild's JS API, as `cdk synth` builds it from `cdkBundlingOptions`. */
export const esbuildOptionsFor = (name: string): BuildOptions => ({
  ...esbuildBuildOptions,
  entryPoints: { index: functionEntry(name) },
});

/** The hook's bundle for esbuild's JS API, as `preTrafficCheckBundlingOptions` is for `cdk synth`. */
export const preTrafficCheckEsbuildOptions: BuildOptions = {
  ...esbuildBuildOptions,
  entryPoints: { index: preTrafficCheckEntry },
  external: [...preTrafficCheckExternalModules],
  alias: {},
};
