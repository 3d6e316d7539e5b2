import { ConfigError, type Env, envNames } from '../config.ts';
import { type Operation, type OperationName, operations } from '../operations.ts';

export const hookEnvNames = {
  targetFunctionArn: 'TARGET_FUNCTION_ARN',
  operation: 'OPERATION',
  tokenUrl: 'TOKEN_URL',
  userPoolId: 'USER_POOL_ID',
  /** Its secret is read from Cognito, never set here. */
  clientId: 'CLIENT_ID',
  /** Without it Cognito grants every scope the client has. */
  tokenScope: 'TOKEN_SCOPE',
  tableName: envNames.tableName,
} as const;

export type TokenSource = {
  readonly tokenUrl: URL;
  readonly userPoolId: string;
  readonly clientId: string;
  readonly scope?: string;
};

export type HookConfig = {
  readonly targetFunctionArn: string;
  readonly operation: Operation & { readonly name: OperationName };
  /** Absent for an external issuer: then only the cases that need no token run, on no plant. */
  readonly token?: TokenSource;
  /** Present with `token`. */
  readonly tableName?: string;
};

/** A version's, not an alias's: the alias still names the previous version. */
const versionArn = /^arn:aws[a-z-]*:lambda:[a-z0-9-]+:\d{12}:function:[A-Za-z0-9_-]{1,64}:\d+$/;

export function loadHookConfig(env: Env): HookConfig {
  const { targetFunctionArn: target, operation: named } = hookEnvNames;
  const targetFunctionArn = value(env, target);
  if (targetFunctionArn === undefined) throw new ConfigError(`${target} is not set`);
  if (!versionArn.test(targetFunctionArn)) {
    throw new ConfigError(
      `${target} is not a function version's ARN ` +
        `(arn:aws:lambda:<region>:<account>:function:<name>:<version>): ${targetFunctionArn}`,
    );
  }
  const name = value(env, named);
  if (name === undefined) throw new ConfigError(`${named} is not set`);
  // A hook that does not know what it checks checks nothing.
  const operation = operations.find((each) => each.name === name);
  if (operation === undefined) {
    const names = operations.map((each) => each.name).join(', ');
    throw new ConfigError(`${named} is not one of ${names}: ${name}`);
  }
  const token = tokenSource(env);
  if (token === undefined) return { targetFunctionArn, operation };
  return { targetFunctionArn, operation, token, tableName: value(env, envNames.tableName) ?? '' };
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

/** All of the pool's and table's variables or none: a half-configured pool is a mistake. */

function tokenSource(env: Env): TokenSource | undefined {
  const { tokenUrl, userPoolId, clientId, tokenScope, tableName } = hookEnvNames;
  const required = [tokenUrl, userPoolId, clientId, tableName];
  const given = [...required, tokenScope].filter((name) => value(env, name) !== undefined);
  if (given.length === 0) return undefined;
  const missing = required.filter((name) => value(env, name) === undefined);
  if (missing.length > 0) {
    throw new ConfigError(
      `${given.join(', ')} set without ${missing.join(', ')}: set all of the pool's and the table's variables, or none for an external issuer`,
    );
  }
  const [url = '', pool = '', client = ''] = [tokenUrl, userPoolId, clientId].map(
    (name) => value(env, name) ?? '',
  );
  // The client secret goes to this URL: never in the clear.
  if (!URL.canParse(url) || new URL(url).protocol !== 'https:') {
    throw new ConfigError(`${tokenUrl} is not an https URL: ${url}`);
  }
  if (!/^[\w-]+_[0-9a-zA-Z]+$/.test(pool)) {
    throw new ConfigError(`${userPoolId} is not a user pool id (<region>_<id>): ${pool}`);
  }
  if (!/^[\w+]+$/.test(client))
    throw new ConfigError(`${clientId} is not an app client id: ${client}`);
  const scope = value(env, tokenScope);
  const source = { tokenUrl: new URL(url), userPoolId: pool, clientId: client };
  return scope === undefined ? source : { ...source, scope };
}

function value(env: Env, name: string): string | undefined {
  return env[name]?.trim() || undefined;
}
