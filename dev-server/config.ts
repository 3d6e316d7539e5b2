import { lookup } from 'node:dns/promises';
import { BlockList } from 'node:net';
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
    port: Number(readChecked(env, 'PORT', portProblem) ?? defaults.port),
    // Absolute; `undefined` (`memory`) keeps the store and the keys in memory.
    dataDir: dataDir === 'memory' ? undefined : resolve(cwd, dataDir),
    client: {
      id: readChecked(env, 'PLANTS_CLIENT_ID', credentialProblem) ?? defaults.clientId,
      secret: readChecked(env, 'PLANTS_CLIENT_SECRET', credentialProblem) ?? defaults.clientSecret,
    },
    webhook: readWebhook(env),
  };
}

export function baseUrl(host: string, port: number): string {
  const reachable = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`;
}

export const bareHost = (host: string): string => host.replace(/^\[(.*)\]$/, '$1');

const loopbackAddresses = new BlockList();
loopbackAddresses.addSubnet('127.0.0.0', 8, 'ipv4');
loopbackAddresses.addAddress('::1', 'ipv6');
const isLoopbackAddress = ({ address, family }: { address: string; family: number }) =>
  loopbackAddresses.check(address, family === 4 ? 'ipv4' : 'ipv6');

/** Whether every address `host` names, resolved as `listen` would, is a loopback address. */
export async function isLoopback(host: string): Promise<boolean> {
  const addresses = await lookup(bareHost(host), { all: true }).catch((error: unknown) => {
    throw new LocalConfigError(`HOST ${host} is not an address of this machine`, { cause: error });
  });
  return addresses.length > 0 && addresses.every(isLoopbackAddress);
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

function readWebhook(env: NodeJS.ProcessEnv) {
  const url = readChecked(env, 'PLANTS_WEBHOOK_URL', webhookUrlProblem);
  // The value is a secret: its problem never repeats it.
  const secret = readChecked(env, 'PLANTS_WEBHOOK_SECRET', webhookSecretProblem);
  return url === undefined ? undefined : { url, secret };
}

type Check = (value: string) => string | undefined;

const portProblem: Check = (raw) =>
  /^\d{1,5}$/.test(raw) && Number(raw) <= 65_535
    ? undefined
    : `must be an integer from 0 to 65535, got "${raw}"`;

// Basic auth splits on the first colon (RFC 7617), so a colon in the id would make it unusable.
const credentialProblem: Check = (value) =>
  /^[\x21-\x39\x3b-\x7e]+$/.test(value)
    ? undefined
    : `must be printable ASCII without spaces or colons, got "${value}"`;

function readChecked(env: NodeJS.ProcessEnv, name: string, problemOf: Check): string | undefined {
  const value = nonEmpty(env, name);
  const problem = value === undefined ? undefined : problemOf(value);
  if (problem !== undefined) throw new LocalConfigError(`${name} ${problem}`);
  return value;
}
