import { mkdtemp, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { projectRoot } from '../../infra/bundling/bundling.ts';
import { runNode } from '../lab.ts';

/** What the CDK CLI adds to every `cdk synth`'s context: path and asset metadata, bundling. */
const cliContext = {
  'aws:cdk:enable-path-metadata': true,
  'aws:cdk:enable-asset-metadata': true,
  'aws:cdk:version-reporting': true,
  'aws:cdk:bundling-stacks': ['**'],
  '@aws-cdk/core:failSynthOnValidationErrors': false,
};

export type CfnResource = {
  readonly Type: string;
  readonly Properties?: Readonly<Record<string, unknown>>;
  readonly Metadata?: Readonly<Record<string, unknown>>;
};

export type CfnTemplate = { readonly Resources: Readonly<Record<string, CfnResource>> };

export type CloudAssembly = {
  readonly outdir: string;
  readonly stacks: readonly { readonly name: string; readonly template: CfnTemplate }[];
};

export type SynthOptions = {
  /** `-c key=value` pairs, on top of `cdk.json`'s context. */
  readonly context?: Readonly<Record<string, unknown>>;
  /** `--no-validation` when false: validation changes nothing synthesized and takes longest. */
  readonly validate?: boolean;
  /** Where to write it; a fresh temporary directory by default. */
  readonly outdir?: string;
};

/** The app synthesized as `npx cdk synth` does it: `cdk.json`'s app with the CLI's environment. */
export async function synthesizeApp(options: SynthOptions = {}): Promise<CloudAssembly> {
  const outdir = options.outdir ?? (await mkdtemp(path.join(os.tmpdir(), 'plant-store-cdk-out-')));
  const cdkJson = JSON.parse(await readFile(path.join(projectRoot, 'cdk.json'), 'utf8')) as {
    app: string;
    context?: Record<string, unknown>;
  };
  const context = { ...cliContext, ...cdkJson.context, ...options.context };
  const [command, ...args] = cdkJson.app.split(' ');
  if (command !== 'node') throw new Error(`cdk.json's app is not a node command: ${cdkJson.app}`);

  const env = {
    ...process.env,
    CDK_OUTDIR: outdir,
    CDK_CONTEXT_JSON: JSON.stringify(context),
    CDK_VALIDATION: String(options.validate ?? true),
  };
  await runNode('synth', args, env, { keepStdout: false, cwd: projectRoot });
  return readCloudAssembly(outdir);
}

export async function readCloudAssembly(outdir: string): Promise<CloudAssembly> {
  const manifest = JSON.parse(await readFile(path.join(outdir, 'manifest.json'), 'utf8')) as {
    artifacts: Record<string, { type: string; properties?: { templateFile?: string } }>;
  };
  const stacks = [];
  for (const [name, artifact] of Object.entries(manifest.artifacts)) {
    const templateFile = artifact.properties?.templateFile;
    if (artifact.type !== 'aws:cloudformation:stack' || !templateFile) continue;
    const text = await readFile(path.join(outdir, templateFile), 'utf8');
    stacks.push({ name, template: JSON.parse(text) as CfnTemplate });
  }
  return { outdir, stacks };
}

export type LambdaFunctionSpec = {
  readonly logicalId: string;
  readonly cdkPath: string;
  readonly stackName: string;
  readonly template: CfnTemplate;
  /** What Lambda puts in `LAMBDA_TASK_ROOT`. */
  readonly assetDir: string;
  readonly handler: string;
  readonly runtime: string;
  readonly memorySize: number;
  readonly timeoutSeconds: number;
  readonly logFormat: string;
  /** `Environment.Variables`, unevaluated. */
  readonly environment: Readonly<Record<string, unknown>>;
};

/** The one function whose `aws:cdk:path` ends with `cdkPathSuffix`, e.g. `CreatePlant/Function/Resource`. */
export function findLambdaFunction(
  assembly: CloudAssembly,
  cdkPathSuffix: string,
): LambdaFunctionSpec {
  const found = assembly.stacks.flatMap(({ name: stackName, template }) =>
    Object.entries(template.Resources).flatMap(([logicalId, resource]) => {
      const cdkPath = String(resource.Metadata?.['aws:cdk:path']);
      return resource.Type === 'AWS::Lambda::Function' && cdkPath.endsWith(`/${cdkPathSuffix}`)
        ? [{ stackName, template, logicalId, cdkPath, resource }]
        : [];
    }),
  );
  const [match, ...others] = found;
  if (!match || others.length > 0) {
    throw new Error(`expected one function at */${cdkPathSuffix}, found ${found.length}`);
  }
  const { resource, ...where } = match;
  const properties = resource.Properties ?? {};
  const assetPath = resource.Metadata?.['aws:asset:path'];
  if (typeof assetPath !== 'string') throw new Error(`${match.cdkPath} has no aws:asset:path`);
  const variables = (properties.Environment as { Variables?: Record<string, unknown> } | undefined)
    ?.Variables;
  return {
    ...where,
    assetDir: path.resolve(assembly.outdir, assetPath),
    handler: String(properties.Handler),
    runtime: String(properties.Runtime),
    memorySize: Number(properties.MemorySize ?? 128),
    timeoutSeconds: Number(properties.Timeout ?? 3),
    logFormat: String((properties.LoggingConfig as { LogFormat?: string })?.LogFormat ?? 'Text'),
    environment: variables ?? {},
  };
}
