export type Config = {
  /** Lambda's own variable; names the metrics' `Service` dimension so stages stay apart. */
  readonly functionName: string;
  readonly tableName: string;
  readonly auth: {
    readonly issuer: string;
    readonly jwksUrl: URL;
    readonly audiences: readonly string[];
    readonly requiredScope: string;
  };
  readonly dynamodb: {
    readonly endpoint: URL;
    /** Absent on AWS: the client's own deadline, sized for DynamoDB. */
    readonly attemptTimeoutMs?: number;
    readonly region: string;
    readonly credentials: {
      readonly accessKeyId: string;
      readonly secretAccessKey: string;
      readonly sessionToken: string | undefined;
    };
  };
};

/** A bad variable fails the cold start, naming it, not a request. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** The one definition the stack and the local server write and `loadConfig` reads. */
export const envNames = {
  tableName: 'PLANTS_TABLE_NAME',
  issuer: 'AUTH_ISSUER',
  jwksUrl: 'AUTH_JWKS_URL',
  audiences: 'AUTH_AUDIENCE',
  scope: 'AUTH_SCOPE',
  dynamodbEndpoint: 'AWS_ENDPOINT_URL_DYNAMODB',
  /** Only the local server sets it: dynalite is far slower than DynamoDB. */
  dynamodbAttemptTimeoutMs: 'DYNAMODB_ATTEMPT_TIMEOUT_MS',
} as const;

export type Env = Readonly<Record<string, string | undefined>>;

/** Reads the handler's environment once; see the table in docs/local-development.md. */
export function loadConfig(env: Env): Config {
  // Kept exactly as configured: `iss` must match it to the character (Auth0's ends in a slash).
  const issuer = required(env, envNames.issuer);
  if (!URL.canParse(issuer)) {
    throw new ConfigError(`${envNames.issuer} is not a valid URL: ${issuer}`);
  }
  const { region, credentials } = awsAccess(env);
  return {
    functionName: env.AWS_LAMBDA_FUNCTION_NAME ?? 'plant-store',
    tableName: required(env, envNames.tableName),
    auth: {
      issuer,
      jwksUrl: url(env, envNames.jwksUrl, `${issuer.replace(/\/+$/, '')}/.well-known/jwks.json`),
      audiences: audiences(env),
      // Required: with three operations, a default would quietly give one of them another's scope.
      requiredScope: required(env, envNames.scope),
    },
    dynamodb: {
      endpoint: serviceEndpoint(env, envNames.dynamodbEndpoint, 'dynamodb', region),
      ...optionalMs(env, envNames.dynamodbAttemptTimeoutMs),
      region,
      credentials,
    },
  };
}

export function awsAccess(env: Env): {
  readonly region: string;
  readonly credentials: Config['dynamodb']['credentials'];
} {
  const region = env.AWS_REGION ?? env.AWS_DEFAULT_REGION;
  if (!region) throw new ConfigError('AWS_REGION is not set');
  return {
    region,
    // Lambda puts the function role's credentials in these variables for the container's life.
    credentials: {
      accessKeyId: required(env, 'AWS_ACCESS_KEY_ID'),
      secretAccessKey: required(env, 'AWS_SECRET_ACCESS_KEY'),
      sessionToken: env.AWS_SESSION_TOKEN,
    },
  };
}

export function serviceEndpoint(env: Env, override: string, service: string, region: string): URL {
  return url(env, override, env.AWS_ENDPOINT_URL ?? `https://${service}.${region}.amazonaws.com`);
}

export function required(env: Env, name: string): string {
  const value = env[name]?.trim();
  if (!value) throw new ConfigError(`${name} is not set`);
  return value;
}

/** Required: a token for another API must never pass here (RFC 9068 4). */
function audiences(env: Env): string[] {
  const names = required(env, envNames.audiences)
    .split(',')
    .map((audience) => audience.trim())
    .filter(Boolean);
  if (names.length === 0) throw new ConfigError(`${envNames.audiences} names no audience`);
  return names;
}

function optionalMs(env: Env, name: string): { attemptTimeoutMs?: number } {
  const value = env[name]?.trim();
  if (!value) return {};
  const ms = Number(value);
  if (!/^\d+$/.test(value) || ms < 1 || ms > 60_000) {
    throw new ConfigError(
      `${name} must be a whole number of milliseconds from 1 to 60000: ${value}`,
    );
  }
  return { attemptTimeoutMs: ms };
}

export function url(env: Env, name: string, fallback: string): URL {
  const value = env[name]?.trim() || fallback;
  if (!URL.canParse(value)) throw new ConfigError(`${name} is not a valid URL: ${value}`);
  return new URL(value);
}
