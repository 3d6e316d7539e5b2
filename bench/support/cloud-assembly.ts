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

/** The stacks of a cloud assembly that `cdk synth` wrote to `outdir`. */
export async function readCloudAssembly(outdir: string): Promise<CloudAssembly> {
  const manifest = JSON.parse(await readFile(path.join(outdir, 'manifest.json'), 'utf8')) as {
    artifacts: Record<string, { type: string; properties?: { templateFile?: string } }>;
  };
  const stacks = [];
  for (const [name, artifact] of Object.entries(manifest.artifacts)) {
    const templateFile = artifact.properties?.templateFile;
    if (artifact.type !== 'aws:cloudformation:stack' || !templateFile) continue;
    const template = JSON.parse(
      await readFile(path.join(outdir, templateFile), 'utf8'),
    ) as CfnTemplate;
    stacks.push({ name, template });
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
  const found = [];
  for (const { name, template } of assembly.stacks) {
    for (const [logicalId, resource] of Object.entries(template.Resources)) {
      const cdkPath = resource.Metadata?.['aws:cdk:path'];
      if (
        resource.Type === 'AWS::Lambda::Function' &&
        typeof cdkPath === 'string' &&
        cdkPath.endsWith(`/${cdkPathSuffix}`)
      ) {
        found.push({ stackName: name, template, logicalId, cdkPath, resource });
      }
    }
  }
  const [match, ...others] = found;
  if (!match || others.length > 0) {
    throw new Error(`expected one function at */${cdkPathSuffix}, found ${found.length}`);
  }
  const { resource } = match;
  const properties = resource.Properties ?? {};
  const assetPath = resource.Metadata?.['aws:asset:path'];
  if (typeof assetPath !== 'string') throw new Error(`${match.cdkPath} has no aws:asset:path`);
  const variables = (properties.Environment as { Variables?: Record<string, unknown> } | undefined)
    ?.Variables;
  return {
    logicalId: match.logicalId,
    cdkPath: match.cdkPath,
    stackName: match.stackName,
    template: match.template,
    assetDir: path.resolve(assembly.outdir, assetPath),
    handler: String(properties.Handler),
    runtime: String(properties.Runtime),
    memorySize: Number(properties.MemorySize ?? 128),
    timeoutSeconds: Number(properties.Timeout ?? 3),
    logFormat: String((properties.LoggingConfig as { LogFormat?: string })?.LogFormat ?? 'Text'),
    environment: variables ?? {},
  };
}
