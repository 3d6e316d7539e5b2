import path from 'node:path';
import {
  ApplicationLogLevel,
  Architecture,
  LoggingFormat,
  Runtime,
  SystemLogLevel,
} from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, type NodejsFunctionProps } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { Construct } from 'constructs';
import { cdkBundlingOptions, functionEntry, projectRoot } from '../bundling/bundling.ts';
import { functionSettings } from '../function-settings.ts';

export interface HandlerFunctionProps
  extends Omit<NodejsFunctionProps, 'entry' | 'handler' | 'environment'> {
  /** The folder under `functions/` whose `handler.ts` exports `handler`. */
  readonly folder: string;
  readonly environment: Readonly<Record<string, string>>;
}

/** A function of ours, `functions/<folder>/handler.ts`, with the settings every one shares. */
export class HandlerFunction extends NodejsFunction {
  constructor(scope: Construct, id: string, props: HandlerFunctionProps) {
    const { folder, environment, ...rest } = props;
    super(scope, id, {
      entry: functionEntry(folder),
      handler: 'handler',
      projectRoot,
      depsLockFilePath: path.join(projectRoot, 'package-lock.json'),
      bundling: cdkBundlingOptions,
      runtime: Runtime.NODEJS_24_X,
      architecture: Architecture.ARM_64,
      loggingFormat: LoggingFormat.JSON,
      applicationLogLevelV2: ApplicationLogLevel.INFO,
      // INFO keeps the platform REPORT line, whose init duration the dashboard's cold-start widget reads.
      systemLogLevelV2: SystemLogLevel.INFO,
      memorySize: functionSettings.memoryMb,
      ...rest,
      environment,
    });
  }
}
