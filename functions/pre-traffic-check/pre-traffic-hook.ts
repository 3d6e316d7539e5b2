import {
  type CodeDeployClient,
  type LifecycleEventStatus,
  PutLifecycleEventHookExecutionStatusCommand,
} from '@aws-sdk/client-codedeploy';
import type { CognitoIdentityProviderClient } from '@aws-sdk/client-cognito-identity-provider';
import type { LambdaClient } from '@aws-sdk/client-lambda';
import type { ConfigError } from '../config.ts';
import { errorChain, type Logger } from '../log.ts';
import { readClientSecret, requestClientCredentialsToken } from './client-credentials.ts';
import { type CoreCasesReport, coreCasesOf, freshPlantId, runCoreCases } from './core-cases.ts';
import type { HookConfig } from './hook-config.ts';
import { versionSender } from './invoke-version.ts';

/** What CodeDeploy sends a lifecycle hook: which deployment, and which hook run to report on. */
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
  readonly log: Logger;
};

/**
 * Kept back from the hook's own timeout for the report: a hook that times out before it reports
 * leaves the deployment waiting for CodeDeploy's hour-long hook timeout.
 */
const reportReserveMs = 10_000;
/** Kept back from the token's retries for the cases: a few invokes of a version that may start cold. */
const casesReserveMs = 40_000;

const externalIssuerNote =
  'No token configuration (external issuer): only the cases that need no token ran';

/**
 * CodeDeploy's BeforeAllowTraffic hook: asks the new version its operation's core cases directly,
 * before any caller reaches it (a case naming another operation, such as the delete that leaves no
 * test plant behind, goes to that operation's live function), and reports Succeeded or Failed. It
 * reports whatever happens (a broken configuration, an unreachable pool, a version that crashes),
 * and fails only when the report itself cannot be made, which lets Lambda retry the whole hook.
 */
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
      const { target, operation, plantId, report } = await check(deps, deadline);
      status = report.passed ? 'Succeeded' : 'Failed';
      fields = {
        target,
        operation,
        plantId,
        cases: report.results,
        ...(report.skipped.length > 0 ? { skipped: report.skipped, note: externalIssuerNote } : {}),
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

async function check(
  deps: PreTrafficHookDeps,
  deadline: number,
): Promise<{ target: string; operation: string; plantId: string; report: CoreCasesReport }> {
  const { config } = deps;
  if (config instanceof Error) throw config;

  let token: string | undefined;
  if (config.token !== undefined) {
    const tokenDeadline = deadline - casesReserveMs;
    if (tokenDeadline <= Date.now()) {
      throw new Error("the hook's timeout leaves no time to get a token: give it a few minutes");
    }
    const { tokenUrl, clientId, scope } = config.token;
    const clientSecret = await readClientSecret(
      deps.cognito,
      config.token,
      signalAt(tokenDeadline),
    );
    token = await requestClientCredentialsToken({
      tokenUrl,
      clientId,
      clientSecret,
      scope,
      deadline: tokenDeadline,
      onRetry: (attempt, reason) =>
        deps.log('warn', 'token endpoint not ready, retrying', { attempt, reason }),
    });
  }

  const plantId = freshPlantId();
  const targets = Object.fromEntries([
    [config.operation.name, { functionArn: config.targetFunctionArn, route: config.operation }],
    ...config.others.map(({ operation, functionArn }) => [
      operation.name,
      { functionArn, route: operation },
    ]),
  ]);
  const send = versionSender(deps.lambda, targets, () => signalAt(deadline));
  const report = await runCoreCases(send, {
    id: plantId,
    token,
    cases: coreCasesOf(config.operation),
  });
  return { target: config.targetFunctionArn, operation: config.operation.name, plantId, report };
}

/** Aborts a call still running at `deadline` (a `Date.now()` value). */
function signalAt(deadline: number): AbortSignal {
  return AbortSignal.timeout(Math.max(1, deadline - Date.now()));
}
