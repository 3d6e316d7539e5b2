import { ConfigError } from '../config.ts';
import { type Operation, type OperationName, operations } from '../operations.ts';
import { coreCasesOf } from './core-cases.ts';

/** The variables the hook's construct sets and `loadHookConfig` reads. */
export const hookEnvNames = {
  /** The qualified ARN of the version the deployment is about to send traffic to. */
  targetFunctionArn: 'TARGET_FUNCTION_ARN',
  /** The operation that version serves (`create-plant`): its core cases are the ones run. */
  operation: 'OPERATION',
  /** The user pool domain's token endpoint (`https://<domain>/oauth2/token`). */
  tokenUrl: 'TOKEN_URL',
  userPoolId: 'USER_POOL_ID',
  /** The pool's client-credentials app client; its secret is read from Cognito, never set here. */
  clientId: 'CLIENT_ID',
  /**
   * The scopes to ask for, space-separated: those of the operations the cases go to. Without it,
   * Cognito grants every scope the client is allowed.
   */
  tokenScope: 'TOKEN_SCOPE',
  /**
   * JSON `{"<operation>": "<qualified function ARN>"}`: where the cases naming another operation go
   * (its `live` alias), for exactly the other operations the cases that run name.
   */
  operationTargets: 'OPERATION_TARGETS',
} as const;

/** An operation of the list, `functions/operations.ts`. */
type ListedOperation = Operation & { readonly name: OperationName };

/** Another operation the cases name, and the function its cases go to. */
export type OperationTarget = {
  readonly operation: ListedOperation;
  /** Its `live` alias: what callers reach, not the version this deploy publishes. */
  readonly functionArn: string;
};

export type TokenSource = {
  readonly tokenUrl: URL;
  readonly userPoolId: string;
  readonly clientId: string;
  readonly scope?: string;
};

export type HookConfig = {
  readonly targetFunctionArn: string;
  /** The operation the target serves, from `functions/operations.ts`. */
  readonly operation: ListedOperation;
  /** Exactly the other operations the cases that run name (`otherOperationsOf`), in list order. */
  readonly others: readonly OperationTarget[];
  /** Absent for an external issuer: then only the cases that need no token run. */
  readonly token?: TokenSource;
};

type Env = Readonly<Record<string, string | undefined>>;

/**
 * A version's ARN, not an alias's or `$LATEST`'s: the hook must reach the version that has no
 * traffic yet, and an alias still names the previous one.
 */
const versionArn = /^arn:aws[a-z-]*:lambda:[a-z0-9-]+:\d{12}:function:[A-Za-z0-9_-]{1,64}:\d+$/;

/** An alias's or a version's ARN: unqualified, it would be `$LATEST`, which no caller reaches. */
const qualifiedArn =
  /^arn:aws[a-z-]*:lambda:[a-z0-9-]+:\d{12}:function:[A-Za-z0-9_-]{1,64}:[A-Za-z0-9_-]{1,128}$/;

/**
 * The other operations of the list an operation's cases are sent to (to create the plant a read
 * checks, to delete it after), in the list's order. With `withToken` false, only those the cases
 * a run without a token sends name: the cases that need a token are skipped.
 */
export function otherOperationsOf(
  operation: Operation,
  withToken = true,
): readonly ListedOperation[] {
  const named = new Set(
    coreCasesOf(operation)
      .filter((testCase) => withToken || !testCase.needsToken)
      .map((testCase) => testCase.operation),
  );
  return operations.filter((each) => each.name !== operation.name && named.has(each.name));
}

/** The scopes a token needs for an operation's cases: its own, then the others' they name. */
export function tokenScopesOf(operation: Operation): readonly Operation['scope'][] {
  return [...new Set([operation, ...otherOperationsOf(operation)].map((each) => each.scope))];
}

/** Reads the hook's environment once; fails naming the variable that is missing or malformed. */
export function loadHookConfig(env: Env): HookConfig {
  const targetFunctionArn = value(env, hookEnvNames.targetFunctionArn);
  if (targetFunctionArn === undefined) {
    throw new ConfigError(`${hookEnvNames.targetFunctionArn} is not set`);
  }
  if (!versionArn.test(targetFunctionArn)) {
    throw new ConfigError(
      `${hookEnvNames.targetFunctionArn} is not a function version's ARN ` +
        `(arn:aws:lambda:<region>:<account>:function:<name>:<version>): ${targetFunctionArn}`,
    );
  }
  const operation = operationOf(env);
  const token = tokenSource(env);
  const others = operationTargets(env, operation, token !== undefined);
  return token === undefined
    ? { targetFunctionArn, operation, others }
    : { targetFunctionArn, operation, others, token };
}

/**
 * The function of each other operation the cases that run name, and of no other: a case with no
 * function to go to would fail the check of a version that works.
 */
function operationTargets(
  env: Env,
  operation: ListedOperation,
  withToken: boolean,
): readonly OperationTarget[] {
  const name = hookEnvNames.operationTargets;
  const expected = otherOperationsOf(operation, withToken);
  const text = value(env, name);
  if (text === undefined) {
    if (expected.length === 0) return [];
    throw new ConfigError(
      `${name} is not set, and ${operation.name}'s cases name ${namesOf(expected)}`,
    );
  }
  const given = stringRecord(text);
  if (given === undefined) {
    throw new ConfigError(
      `${name} is not a JSON object of operation names and function ARNs: ${text}`,
    );
  }
  const missing = expected.filter((each) => !Object.hasOwn(given, each.name));
  if (missing.length > 0) {
    throw new ConfigError(
      `${name} has no function for ${namesOf(missing)}, which ${operation.name}'s cases name`,
    );
  }
  const extra = Object.keys(given).filter((key) => !expected.some((each) => each.name === key));
  if (extra.length > 0) {
    throw new ConfigError(
      `${name} names operations ${operation.name}'s cases do not send to: ${extra.join(', ')}`,
    );
  }
  return expected.map((each) => {
    const functionArn = given[each.name]?.trim() ?? '';
    if (!qualifiedArn.test(functionArn)) {
      throw new ConfigError(
        `${name} gives ${each.name} no alias or version ARN ` +
          `(arn:aws:lambda:<region>:<account>:function:<name>:<alias>): ${functionArn}`,
      );
    }
    return { operation: each, functionArn };
  });
}

/** A JSON object whose values are all text, or undefined for anything else. */
function stringRecord(text: string): Readonly<Record<string, string>> | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
  return Object.values(parsed).every((each) => typeof each === 'string')
    ? (parsed as Record<string, string>)
    : undefined;
}

function namesOf(list: readonly Operation[]): string {
  return list.map((each) => each.name).join(', ');
}

/** One of the operations by its name: a hook that does not know what it checks checks nothing. */
function operationOf(env: Env): HookConfig['operation'] {
  const name = value(env, hookEnvNames.operation);
  if (name === undefined) throw new ConfigError(`${hookEnvNames.operation} is not set`);
  const operation = operations.find((each) => each.name === name);
  if (operation === undefined) {
    throw new ConfigError(
      `${hookEnvNames.operation} is not one of ${operations.map((each) => each.name).join(', ')}: ${name}`,
    );
  }
  return operation;
}

/** The configuration, or why there is none: a hook that cannot read it must still report. */
export function loadHookConfigOrError(env: Env): HookConfig | ConfigError {
  try {
    return loadHookConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
}

/** All of the pool's variables or none of them: a half-configured pool is a mistake, not an external issuer. */
function tokenSource(env: Env): TokenSource | undefined {
  const { tokenUrl, userPoolId, clientId, tokenScope } = hookEnvNames;
  const given = [tokenUrl, userPoolId, clientId, tokenScope].filter(
    (name) => value(env, name) !== undefined,
  );
  if (given.length === 0) return undefined;
  const missing = [tokenUrl, userPoolId, clientId].filter((name) => value(env, name) === undefined);
  if (missing.length > 0) {
    throw new ConfigError(
      `${given.join(', ')} set without ${missing.join(', ')}: set all of the pool's variables, or none for an external issuer`,
    );
  }
  const url = value(env, tokenUrl) ?? '';
  // The client secret goes to this URL: never in the clear.
  if (!URL.canParse(url) || new URL(url).protocol !== 'https:') {
    throw new ConfigError(`${tokenUrl} is not an https URL: ${url}`);
  }
  const pool = value(env, userPoolId) ?? '';
  if (!/^[\w-]+_[0-9a-zA-Z]+$/.test(pool)) {
    throw new ConfigError(`${userPoolId} is not a user pool id (<region>_<id>): ${pool}`);
  }
  const client = value(env, clientId) ?? '';
  if (!/^[\w+]+$/.test(client))
    throw new ConfigError(`${clientId} is not an app client id: ${client}`);
  const scope = value(env, tokenScope);
  return {
    tokenUrl: new URL(url),
    userPoolId: pool,
    clientId: client,
    ...(scope === undefined ? {} : { scope }),
  };
}

function value(env: Env, name: string): string | undefined {
  return env[name]?.trim() || undefined;
}
