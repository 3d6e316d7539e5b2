import { resolve } from 'node:path';
import { webhookSecretProblem, webhookUrlProblem } from './webhook/webhook-secret.ts';

/** How `npm start` and `npm run -s token` are configured, read once from the environment. */
export interface LocalConfig {
  readonly host: string;
  readonly port: number;
  /** Absolute directory for the store and the signing key; `undefined` keeps both in memory. */
  readonly dataDir: string | undefined;
  /** The one OAuth 2.0 client the local issuer knows, like the app client of the Cognito user pool. */
  readonly client: { readonly id: string; readonly secret: string };
  /** Where new plants' events go, and the secret they are signed with (generated when absent). */
  readonly webhook: { readonly url: string; readonly secret: string | undefined } | undefined;
}

export const defaults = {
  host: '127.0.0.1',
  port: 3000,
  dataDir: '.data',
  clientId: 'local-client',
  clientSecret: 'local-secret',
} as const;

export class LocalConfigError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'LocalConfigError';
  }
}

export function loadLocalConfig(
  env: NodeJS.ProcessEnv = process.env,
  cwd: string = process.cwd(),
): LocalConfig {
  const dataDir = nonEmpty(env, 'PLANTS_DATA_DIR') ?? defaults.dataDir;
  return {
    host: nonEmpty(env, 'HOST') ?? defaults.host,
    port: readPort(env),
    // `memory` keeps the table and the signing key in memory instead of on disk.
    dataDir: dataDir === 'memory' ? undefined : resolve(cwd, dataDir),
    client: {
      id: readClientCredential(env, 'PLANTS_CLIENT_ID') ?? defaults.clientId,
      secret: readClientCredential(env, 'PLANTS_CLIENT_SECRET') ?? defaults.clientSecret,
    },
    webhook: readWebhook(env),
  };
}

/** The base URL clients use; a wildcard listen address is reached through loopback. */
export function baseUrl(host: string, port: number): string {
  const reachable = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`;
}

/** A host name or address without the brackets an IPv6 address may be written in: `[::1]` -> `::1`. */
export function bareHost(host: string): string {
  return host.replace(/^\[(.*)\]$/, '$1');
}

/** Whether only this machine can reach an address: `localhost`, 127.0.0.0/8 or `::1`. */
export function isLoopback(host: string): boolean {
  const bare = bareHost(host.toLowerCase());
  return bare === 'localhost' || bare === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bare);
}

function nonEmpty(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

function readPort(env: NodeJS.ProcessEnv): number {
  const raw = nonEmpty(env, 'PORT');
  if (raw === undefined) return defaults.port;
  if (!/^\d{1,5}$/.test(raw) || Number(raw) > 65_535) {
    throw new LocalConfigError(`PORT must be an integer from 0 to 65535, got "${raw}"`);
  }
  return Number(raw);
}

function readWebhook(env: NodeJS.ProcessEnv): LocalConfig['webhook'] {
  const url = nonEmpty(env, 'PLANTS_WEBHOOK_URL');
  const secret = nonEmpty(env, 'PLANTS_WEBHOOK_SECRET');
  const urlProblem = url === undefined ? undefined : webhookUrlProblem(url);
  if (urlProblem !== undefined) throw new LocalConfigError(`PLANTS_WEBHOOK_URL ${urlProblem}`);
  const secretProblem = secret === undefined ? undefined : webhookSecretProblem(secret);
  // The value is a secret: the message never repeats it.
  if (secretProblem !== undefined)
    throw new LocalConfigError(`PLANTS_WEBHOOK_SECRET ${secretProblem}`);
  return url === undefined ? undefined : { url, secret };
}

function readClientCredential(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = nonEmpty(env, name);
  // Basic auth splits on the first colon (RFC 7617), so a colon in the id would make it unusable.
  if (value !== undefined && !/^[\x21-\x39\x3b-\x7e]+$/.test(value)) {
    throw new LocalConfigError(
      `${name} must be printable ASCII without spaces or colons, got "${value}"`,
    );
  }
  return value;
}
