import { BlockList, isIP } from 'node:net';
import {
  type DeploymentConfigName,
  deploymentConfigNames,
} from './constructs/gradual-deployment.ts';
import type { TokenIssuerConfig } from './constructs/operation-function.ts';

/** What varies between deployments (docs/decisions/0140-stage-settings-in-cdk-json.md). */
export interface StageConfig {
  readonly stage: string;
  readonly alarmEmail?: string;
  readonly externalIssuer?: TokenIssuerConfig;
  readonly authDomainPrefix?: string;
  readonly throttlingRateLimit?: number;
  readonly throttlingBurstLimit?: number;
  readonly deploymentConfig: DeploymentConfigName;
  readonly ignoreAlarmConfiguration: boolean;
  readonly customDomain?: CustomDomainConfig;
  readonly ciRoleArn?: string;
  readonly webhookUrl?: string;
  readonly webhookConcurrency?: number;
}

export interface CustomDomainConfig {
  readonly domainName: string;
  readonly certificateArn: string;
}

export function defaultDeploymentConfig(stage: string): DeploymentConfigName {
  return stage === 'dev' ? 'AllAtOnce' : 'Canary10Percent5Minutes';
}

export type ContextReader = (key: string) => unknown;

export class StageConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StageConfigError';
  }
}

/** Short and DNS-safe: it ends up in the stack name and the Cognito domain prefix. */
const stagePattern = /^[a-z][a-z0-9-]{0,19}$/;
/** Deployed, `PlantStore-ci` would replace the CI stack's deploy role with a copy of the API. */
const ciStackStage = 'ci';
const reservedInDomainPrefix = /aws|amazon|cognito/;
const domainPrefixPattern = /^(?!.*(?:aws|amazon|cognito))[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const domainNamePattern = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;
const certificateArnPattern = /^arn:aws[a-z-]*:acm:[a-z0-9-]+:\d{12}:certificate\/[0-9a-f-]{36}$/;
const roleArnPattern = /^arn:aws[a-z-]*:iam::\d{12}:role\/[\w+=,.@/-]{1,512}$/;

/** Not `ignoreAlarmConfiguration`: left in cdk.json, it would ship every release unwatched. */
export const stageSettingKeys = [
  'alarmEmail',
  'authIssuer',
  'authAudience',
  'authJwksUrl',
  'authScope',
  'authReadScope',
  'authDomainPrefix',
  'throttleRateLimit',
  'throttleBurstLimit',
  'deploymentConfig',
  'domainName',
  'certificateArn',
  'ciRoleArn',
  'webhookUrl',
  'webhookConcurrency',
] as const;

export const stageContextKeys: readonly string[] = [
  'stage',
  'ignoreAlarmConfiguration',
  'stages',
  ...stageSettingKeys,
];

/** Ignored, a misspelt key would silently drop its setting; the CDK's own keys pass unread. */
export function checkContextKeys(keys: Iterable<string>, known: readonly string[]): void {
  for (const key of keys) {
    if (known.includes(key) || /[:/]/.test(key) || key.startsWith('@')) continue;
    const near = nearestKey(key, known);
    if (near === undefined && /^[a-z0-9]+(?:-[a-z0-9]+)+$/.test(key)) continue;
    throw new StageConfigError(
      `context has an unknown key "${key}" (from -c or cdk.json)` +
        (near !== undefined ? `: did you mean "${near}"?` : `; the keys are ${known.join(', ')}`),
    );
  }
}

function nearestKey(key: string, known: readonly string[]): string | undefined {
  const plain = (each: string) => each.toLowerCase().replace(/[-_]/g, '');
  return known.find((each) => plain(each) === plain(key));
}

export function readStageConfig(context: ContextReader): StageConfig {
  const stage = contextText(context, 'stage') ?? 'dev';
  checkStageName(stage, 'context "stage"');
  const stages = readStages(context);
  // Every entry is checked whole on every synth, so a mistake in prod's fails dev's synth too.
  for (const [name, settings] of Object.entries(stages)) {
    try {
      readSettings(name, (key) => settings[key]);
    } catch (error) {
      if (!(error instanceof StageConfigError)) throw error;
      const named = error.message.replace(/context "/g, `"stages.${name}.`);
      throw new StageConfigError(named === error.message ? `stages.${name}: ${named}` : named);
    }
  }
  const own = stages[stage] ?? {};
  return readSettings(stage, (key) => {
    const given = context(key);
    return given === undefined || given === null ? own[key] : given;
  });
}

function checkStageName(stage: string, what: string): void {
  if (!stagePattern.test(stage)) {
    throw new StageConfigError(
      `${what} must be lowercase letters, digits and hyphens, starting with a letter, at most 20 characters: ${stage}`,
    );
  }
  if (stage === ciStackStage) {
    throw new StageConfigError(
      `${what} cannot be "${ciStackStage}": PlantStore-${ciStackStage} is the CI stack's name`,
    );
  }
}

type StageSettings = Readonly<Record<string, unknown>>;

function readStages(context: ContextReader): Readonly<Record<string, StageSettings>> {
  const value = context('stages');
  if (value === undefined || value === null) return {};
  if (!isPlainObject(value)) {
    throw new StageConfigError(
      'context "stages" must be an object of stages, each an object of settings',
    );
  }
  const known: readonly string[] = stageSettingKeys;
  for (const [name, settings] of Object.entries(value)) {
    checkStageName(name, `context "stages" entry "${name}"`);
    if (!isPlainObject(settings)) {
      throw new StageConfigError(`"stages.${name}" must be an object of settings`);
    }
    for (const key of Object.keys(settings)) {
      if (known.includes(key)) continue;
      const near = nearestKey(key, known);
      const oneRun = key === 'stage' || key === 'ignoreAlarmConfiguration';
      throw new StageConfigError(
        `"stages.${name}" has an unknown key "${key}"` +
          (near !== undefined
            ? `: did you mean "${near}"?`
            : oneRun
              ? `: it is given with -c for one run only`
              : `; the keys are ${known.join(', ')}`),
      );
    }
  }
  return value as Record<string, StageSettings>;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function readSettings(stage: string, context: ContextReader): StageConfig {
  const alarmEmail = contextText(context, 'alarmEmail');
  if (alarmEmail !== undefined && !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(alarmEmail)) {
    throw new StageConfigError(`context "alarmEmail" is not an e-mail address: ${alarmEmail}`);
  }

  const externalIssuer = readExternalIssuer(context);
  const authDomainPrefix = matching(
    context,
    'authDomainPrefix',
    domainPrefixPattern,
    'lowercase letters, digits and hyphens, at most 63 characters, without "aws", "amazon" or "cognito"',
  );
  if (externalIssuer === undefined && authDomainPrefix === undefined) {
    defaultDomainPrefixStem(stage);
  }

  const webhookUrl = readWebhookUrl(context);
  return {
    stage,
    alarmEmail,
    externalIssuer,
    authDomainPrefix,
    throttlingRateLimit: positiveInteger(context, 'throttleRateLimit'),
    throttlingBurstLimit: positiveInteger(context, 'throttleBurstLimit'),
    deploymentConfig: readDeploymentConfig(context, stage),
    ignoreAlarmConfiguration: flag(context, 'ignoreAlarmConfiguration'),
    customDomain: readCustomDomain(context),
    ciRoleArn: matching(context, 'ciRoleArn', roleArnPattern, 'an IAM role ARN'),
    webhookUrl,
    webhookConcurrency: readWebhookConcurrency(context, webhookUrl),
  };
}

function readWebhookConcurrency(
  context: ContextReader,
  webhookUrl: string | undefined,
): number | undefined {
  const value = positiveInteger(context, 'webhookConcurrency');
  if (value === undefined) return undefined;
  if (webhookUrl === undefined) {
    throw new StageConfigError(
      'context "webhookConcurrency" applies only together with "webhookUrl"',
    );
  }
  if (value < 2 || value > 1000) {
    throw new StageConfigError(
      `context "webhookConcurrency" must be from 2 to 1000, as SQS event source mappings take it: ${value}`,
    );
  }
  return value;
}

/** https only: the signature proves who sent an event, not that nobody read it. */
function readWebhookUrl(context: ContextReader): string | undefined {
  const value = contextText(context, 'webhookUrl');
  if (value === undefined) return undefined;
  httpsUrl('webhookUrl', value);
  const url = new URL(value);
  if (url.username !== '' || url.password !== '') {
    // Not repeated: the message lands in terminals and CI logs.
    throw new StageConfigError(
      'context "webhookUrl" must not carry credentials (user:password@): the URL is plain text in the template and the function configuration, and the signature is what tells the subscriber who sent it (docs/webhooks.md)',
    );
  }
  const unreachable = notASubscriber(url.hostname);
  if (unreachable !== undefined) {
    throw new StageConfigError(`context "webhookUrl" names ${unreachable}: ${value}`);
  }
  return value;
}

function addressList(...subnets: string[]): BlockList {
  const list = new BlockList();
  for (const subnet of subnets) {
    const [network = '', prefix] = subnet.split('/');
    list.addSubnet(network, Number(prefix), isIP(network) === 6 ? 'ipv6' : 'ipv4');
  }
  return list;
}

/** Hosts no subscriber is at; `URL` has already normalised other spellings of an address. */
const nonSubscriberHosts = [
  {
    what: 'a loopback host (127.0.0.0/8, ::1, localhost): the sandbox the deliverer runs in, not a subscriber',
    addresses: addressList('127.0.0.0/8', '::1/128'),
    // RFC 6761: localhost and every name under it resolve to loopback.
    names: /^(?:.+\.)?localhost\.?$/,
  },
  {
    what: 'a link-local host (169.254.0.0/16, fe80::/10): where the cloud provider answers (169.254.169.254 is the instance metadata address), not a subscriber',
    addresses: addressList('169.254.0.0/16', 'fe80::/10'),
  },
  {
    what: 'an unspecified address (0.0.0.0/8, ::): a connection to it reaches the machine the deliverer runs on, not a subscriber',
    addresses: addressList('0.0.0.0/8', '::/128'),
  },
] as const;

function notASubscriber(hostname: string): string | undefined {
  const address = hostname.replace(/^\[(.*)\]$/, '$1');
  const family = isIP(address);
  for (const hosts of nonSubscriberHosts) {
    if (family !== 0 && hosts.addresses.check(address, family === 6 ? 'ipv6' : 'ipv4')) {
      return hosts.what;
    }
    if (family === 0 && 'names' in hosts && hosts.names.test(address)) return hosts.what;
  }
  return undefined;
}

function readCustomDomain(context: ContextReader): CustomDomainConfig | undefined {
  const domainName = matching(context, 'domainName', domainNamePattern, 'a lowercase host name');
  const certificateArn = matching(
    context,
    'certificateArn',
    certificateArnPattern,
    'an ACM certificate ARN',
  );
  if (domainName === undefined && certificateArn === undefined) return undefined;
  if (domainName === undefined || certificateArn === undefined) {
    throw new StageConfigError('context "domainName" and "certificateArn" go together');
  }
  return { domainName, certificateArn };
}

function flag(context: ContextReader, key: string): boolean {
  const value = context(key);
  if (value === undefined || value === null || value === false || value === 'false') return false;
  if (value === true || value === 'true') return true;
  throw new StageConfigError(`context "${key}" must be true or false: ${String(value)}`);
}

function matching(
  context: ContextReader,
  key: string,
  pattern: RegExp,
  what: string,
): string | undefined {
  const value = contextText(context, key);
  if (value !== undefined && !pattern.test(value)) {
    throw new StageConfigError(`context "${key}" must be ${what}: ${value}`);
  }
  return value;
}

function readDeploymentConfig(context: ContextReader, stage: string): DeploymentConfigName {
  const name = contextText(context, 'deploymentConfig');
  if (name === undefined) return defaultDeploymentConfig(stage);
  const known = deploymentConfigNames.find((each) => each === name);
  if (known === undefined) {
    throw new StageConfigError(
      `context "deploymentConfig" must be one of ${deploymentConfigNames.join(', ')}: ${name}`,
    );
  }
  return known;
}

/** Refuses at synth a reserved word Cognito would refuse at deploy time. */
export function defaultDomainPrefixStem(stage: string): string {
  const stem = `plants-${stage}-`;
  const reserved = reservedInDomainPrefix.exec(stem);
  if (reserved !== null) {
    throw new StageConfigError(
      `stage "${stage}" contains "${reserved[0]}", which Cognito refuses in a domain prefix, and the default prefix is plants-<stage>-<stack instance id>: choose another stage, or give the prefix with -c authDomainPrefix=<prefix>`,
    );
  }
  return stem;
}

function readExternalIssuer(context: ContextReader): TokenIssuerConfig | undefined {
  const issuer = contextText(context, 'authIssuer');
  const dependents = ['authAudience', 'authJwksUrl', 'authScope', 'authReadScope'];
  if (issuer === undefined) {
    const stray = dependents.find((key) => contextText(context, key) !== undefined);
    if (stray !== undefined) {
      throw new StageConfigError(`context "${stray}" applies only together with "authIssuer"`);
    }
    return undefined;
  }
  httpsUrl('authIssuer', issuer);
  const audiences = (contextText(context, 'authAudience') ?? '')
    .split(',')
    .map((audience) => audience.trim())
    .filter(Boolean);
  // Without an audience, any token the issuer signs for any other API would be accepted here.
  if (audiences.length === 0) {
    throw new StageConfigError('context "authAudience" is required with "authIssuer"');
  }
  const jwksUrl = contextText(context, 'authJwksUrl');
  if (jwksUrl !== undefined) httpsUrl('authJwksUrl', jwksUrl);
  const write = contextText(context, 'authScope');
  const read = contextText(context, 'authReadScope');
  return {
    issuer,
    audiences,
    jwksUrl,
    scopes: {
      ...(write === undefined ? {} : { 'plants/write': write }),
      ...(read === undefined ? {} : { 'plants/read': read }),
    },
  };
}

export function contextText(context: ContextReader, key: string): string | undefined {
  const value = context(key);
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') {
    throw new StageConfigError(`context "${key}" must be a string`);
  }
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed;
}

function positiveInteger(context: ContextReader, key: string): number | undefined {
  const value = context(key);
  if (value === undefined || value === null || value === '') return undefined;
  const parsed = typeof value === 'number' ? value : Number(value);
  if (!Number.isSafeInteger(parsed) || parsed <= 0) {
    throw new StageConfigError(`context "${key}" must be a positive integer: ${String(value)}`);
  }
  return parsed;
}

function httpsUrl(key: string, value: string): void {
  if (!URL.canParse(value) || new URL(value).protocol !== 'https:') {
    throw new StageConfigError(`context "${key}" must be an https URL: ${value}`);
  }
}
