import {
  type CodeDeployClient,
  type LifecycleEventStatus,
  PutLifecycleEventHookExecutionStatusCommand,
} from '@aws-sdk/client-codedeploy';
import type { CognitoIdentityProviderClient } from '@aws-sdk/client-cognito-identity-provider';
import type { LambdaClient } from '@aws-sdk/client-lambda';
import { type CheckFixture, freshPlantId, runChecks } from '../checks/runner.ts';
import type { ConfigError } from '../config.ts';
import { errorChain, type Logger } from '../log.ts';
import { checksOf } from '../operations.ts';
import { readClientSecret, requestClientCredentialsToken } from './client-credentials.ts';
import type { HookConfig } from './hook-config.ts';
import { versionSender } from './invoke-version.ts';

export type LifecycleHookEvent = {
  readonly DeploymentId: string;
  readonly LifecycleEventHookExecutionId: string;
};

export type PreTrafficHookDeps = {
  /** Read once at init; a configuration error still gets a report (Failed), not a silent hour. */
  readonly config: HookConfig | ConfigError;
  readonly lambda: LambdaClient;
  readonly codedeploy: CodeDeployClient;
  readonly cognito: CognitoIdentityProviderClient;
  readonly fixture: (tableName: string) => CheckFixture;
  readonly log: Logger;
};

/** For the report: a hook that times out unreported leaves the deployment waiting an hour. */
const reportReserveMs = 10_000;
/** For the cases: a few invokes of a version that may start cold. */
const casesReserveMs = 40_000;

const externalIssuerNote =
  'No token configuration (external issuer): only the cases that need no token ran';

/** Reports whatever happens; throws only when the report fails, so Lambda retries the hook. */
export function makePreTrafficHook(deps: PreTrafficHookDeps) {
  return async (
    event: LifecycleHookEvent,
    context: { getRemainingTimeInMillis(): number },
  ): Promise<{ status: LifecycleEventStatus }> => {
    const { DeploymentId: deploymentId, LifecycleEventHookExecutionId: executionId } = event ?? {};
    if (!deploymentId || !executionId) {
      throw new Error('not a CodeDeploy lifecycle hook event: nothing to report to');
    }
    const deadline = Date.now() + context.getRemainingTimeInMillis() - reportReserveMs;

    let status: LifecycleEventStatus = 'Failed';
    let fields: Record<string, unknown>;
    try {
      const { report, ...run } = await check(deps, deadline);
      status = report.passed ? 'Succeeded' : 'Failed';
      const { results: cases, skipped } = report;
      fields = {
        ...run,
        cases,
        ...(skipped.length > 0 ? { skipped, note: externalIssuerNote } : {}),
        ...('error' in report ? { error: errorChain(report.error) } : {}),
      };
    } catch (error) {
      fields = { error: errorChain(error) };
    }

    deps.log(status === 'Succeeded' ? 'info' : 'error', 'pre-traffic check', {
      deploymentId,
      status,
      ...fields,
    });
    await deps.codedeploy.send(
      new PutLifecycleEventHookExecutionStatusCommand({
        deploymentId,
        lifecycleEventHookExecutionId: executionId,
        status,
      }),
      { abortSignal: AbortSignal.timeout(reportReserveMs) },
    );
    return { status };
  };
}

async function check(deps: PreTrafficHookDeps, deadline: number) {
  const { config } = deps;
  if (config instanceof Error) throw config;
  const { operation, targetFunctionArn: target, tableName } = config;
  let token: string | undefined;
  if (config.token !== undefined) {
    const tokenDeadline = deadline - casesReserveMs;
    if (tokenDeadline <= Date.now()) {
      throw new Error("the hook's timeout leaves no time to get a token: give it a few minutes");
    }
    token = await requestClientCredentialsToken({
      ...config.token,
      clientSecret: await readClientSecret(deps.cognito, config.token, signalAt(tokenDeadline)),
      deadline: tokenDeadline,
      onRetry: (attempt, reason) =>
        deps.log('warn', 'token endpoint not ready, retrying', { attempt, reason }),
    });
  }
  const plantId = freshPlantId();
  const report = await runChecks(operation, checksOf(operation), {
    send: versionSender(deps.lambda, target, operation, () => signalAt(deadline)),
    ...(tableName === undefined ? {} : { fixture: deps.fixture(tableName) }),
    id: plantId,
    token,
  });
  return { target, operation: operation.name, plantId, report };
}

function signalAt(deadline: number): AbortSignal {
  return AbortSignal.timeout(Math.max(1, deadline - Date.now()));
}
