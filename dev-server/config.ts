import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { resolve } from 'node:path';
import { webhookSecretProblem, webhookUrlProblem } from './webhook/webhook-secret.ts';

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

export type LocalConfig = ReturnType<typeof loadLocalConfig>;

export function loadLocalConfig(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()) {
  const dataDir = nonEmpty(env, 'PLANTS_DATA_DIR') ?? defaults.dataDir;
  return {
    host: nonEmpty(env, 'HOST') ?? defaults.host,
    port: readPort(env),
    // Absolute; `undefined` (`memory`) keeps the store and the keys in memory.
    dataDir: dataDir === 'memory' ? undefined : resolve(cwd, dataDir),
    // The one OAuth 2.0 client the local issuer knows, as the user pool's app client.
    client: {
      id: readClientCredential(env, 'PLANTS_CLIENT_ID') ?? defaults.clientId,
      secret: readClientCredential(env, 'PLANTS_CLIENT_SECRET') ?? defaults.clientSecret,
    },
    webhook: readWebhook(env),
  };
}

export function baseUrl(host: string, port: number): string {
  const reachable = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`;
}

export function bareHost(host: string): string {
  return host.replace(/^\[(.*)\]$/, '$1');
}

const loopbackAddresses = new BlockList();
loopbackAddresses.addSubnet('127.0.0.0', 8, 'ipv4');
loopbackAddresses.addAddress('::1', 'ipv6');

function isLoopbackAddress(address: string): boolean {
  const bare = bareHost(address);
  const family = isIP(bare);
  return family !== 0 && loopbackAddresses.check(bare, family === 4 ? 'ipv4' : 'ipv6');
}

/** Whether every address `host` names, resolved as `listen` would, is a loopback address. */
export async function isLoopback(host: string): Promise<boolean> {
  const bare = bareHost(host);
  if (isIP(bare) !== 0) return isLoopbackAddress(bare);
  const addresses = await lookup(bare, { all: true }).catch((error: unknown) => {
    throw new LocalConfigError(`HOST ${host} is not an address of this machine`, { cause: error });
  });
  return addresses.length > 0 && addresses.every(({ address }) => isLoopbackAddress(address));
}

export const minExposedSecretLength = 32;

/** Where other machines can reach the token endpoint, refuses a secret they could guess. */
export function refuseWeakSecret(host: string, loopback: boolean, secret: string): void {
  if (loopback) return;
  const why =
    secret === defaults.clientSecret
      ? `the published default secret "${defaults.clientSecret}"`
      : secret.length < minExposedSecretLength
        ? `a client secret shorter than ${minExposedSecretLength} characters`
        : undefined;
  if (why === undefined) return;
  throw new LocalConfigError(
    `HOST ${host} lets other machines reach the API, and its token endpoint would hand out ` +
      `tokens for ${why}: set PLANTS_CLIENT_SECRET to a random secret of at least ` +
      `${minExposedSecretLength} characters, e.g. PLANTS_CLIENT_SECRET=$(node -p ` +
      `"crypto.randomBytes(32).toString('base64url')"), or leave HOST unset (127.0.0.1).`,
  );
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

function readWebhook(env: NodeJS.ProcessEnv) {
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
