import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { lambdaEnvironment } from '../../bench/support/lambda-environment.ts';
import { type LambdaProcess, startLambdaProcess } from '../../bench/support/lambda-process.ts';
import { envNames } from '../../functions/config.ts';
import { type OperationName, operations } from '../../functions/operations.ts';
import {
  bundleFileName,
  esbuildOptionsFor,
  lambdaHandler,
  projectRoot,
} from '../../infra/bundling/bundling.ts';
import { type DynaliteServer, startDynalite } from './dynalite-server.ts';
import { startTestIssuer, type TestIssuer } from './test-issuer.ts';

export type OperationBundle = {
  /** What Lambda would unzip into `LAMBDA_TASK_ROOT`. */
  readonly dir: string;
  /** Every file the bundle was built from, relative to the project (`node_modules/zod/...`). */
  readonly inputs: readonly string[];
  /** The bundle's size in bytes. */
  readonly bytes: number;
  /**
   * Runs the bundle in a Lambda-like process (`lambda-process.ts`), with Lambda's reserved
   * variables, these function variables and DynamoDB's endpoint override.
   */
  start(
    variables: Readonly<Record<string, string>>,
    dynamodbEndpoint: string,
  ): Promise<LambdaProcess>;
  /** Removes the bundle. */
  remove(): Promise<void>;
};

/**
 * An operation's `functions/<name>/handler.ts`, bundled with the stack's own esbuild options
 * (`infra/bundling/bundling.ts`), only the entry point its own.
 */
export async function buildOperationBundle(name: OperationName): Promise<OperationBundle> {
  const dir = await mkdtemp(path.join(os.tmpdir(), `plant-store-${name}-`));
  const { metafile } = await build({
    ...esbuildOptionsFor(name),
    outdir: dir,
    absWorkingDir: projectRoot,
    metafile: true,
    logLevel: 'warning',
  });
  const output = Object.entries(metafile.outputs).find(([file]) => file.endsWith(bundleFileName));
  return {
    dir,
    inputs: Object.keys(metafile.inputs),
    bytes: output?.[1].bytes ?? 0,
    start: (variables, dynamodbEndpoint) =>
      startLambdaProcess({
        env: {
          ...lambdaEnvironment({
            fn: {
              assetDir: dir,
              handler: lambdaHandler,
              runtime: 'nodejs24.x',
              memorySize: 1024,
              logFormat: 'JSON',
            },
            variables,
            region: 'eu-west-1',
            functionName: `PlantStore-test-${name}`,
          }),
          AWS_ENDPOINT_URL_DYNAMODB: dynamodbEndpoint,
        },
      }),
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

export type BundledOperation = {
  readonly bundle: OperationBundle;
  readonly dynalite: DynaliteServer;
  readonly issuer: TestIssuer;
  /** The bundle running under the Lambda runtime against `dynalite`, trusting `issuer`. */
  readonly fn: LambdaProcess;
  /** Stops the function, the table and the issuer, and removes the bundle. */
  close(): Promise<void>;
};

/**
 * An operation's bundle started as its stack starts it: its own table and issuer, the audience
 * `test-client`, and the scope its entry in `functions/operations.ts` names.
 */
export async function startBundledOperation(name: OperationName): Promise<BundledOperation> {
  const operation = operations.find((each) => each.name === name);
  if (operation === undefined) throw new Error(`no operation ${name}`);
  const [bundle, dynalite, issuer] = await Promise.all([
    buildOperationBundle(name),
    startDynalite(),
    startTestIssuer(),
  ]);
  const stop = async () => {
    await Promise.all([bundle.remove(), dynalite.close(), issuer.close()]);
  };
  const fn = await bundle
    .start(
      {
        [envNames.tableName]: dynalite.tableName,
        [envNames.issuer]: issuer.issuer,
        [envNames.audiences]: 'test-client',
        [envNames.scope]: operation.scope,
      },
      dynalite.endpoint,
    )
    .catch(async (error: unknown) => {
      await stop();
      throw error;
    });
  return {
    bundle,
    dynalite,
    issuer,
    fn,
    close: async () => {
      await fn.close();
      await stop();
    },
  };
}
