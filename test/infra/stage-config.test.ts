import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../infra/bundling/bundling.ts';
import {
  checkContextKeys,
  readStageConfig,
  StageConfigError,
  stageContextKeys,
  stageSettingKeys,
} from '../../infra/stage-config.ts';

const from =
  (context: Record<string, unknown>) =>
  (key: string): unknown =>
    context[key];

describe('readStageConfig', () => {
  it('defaults to the dev stage with a Cognito issuer and no alarm e-mail', () => {
    expect(readStageConfig(from({}))).toEqual({
      stage: 'dev',
      alarmEmail: undefined,
      externalIssuer: undefined,
      authDomainPrefix: undefined,
      throttlingRateLimit: undefined,
      throttlingBurstLimit: undefined,
      deploymentConfig: 'AllAtOnce',
      ignoreAlarmConfiguration: false,
      customDomain: undefined,
      ciRoleArn: undefined,
      webhookUrl: undefined,
      webhookConcurrency: undefined,
    });
  });

  it('reads the webhook URL, which turns the new-plant webhook on', () => {
    const webhookUrl = 'https://hooks.example.com/plant/webhook?team=garden';

    expect(readStageConfig(from({ webhookUrl })).webhookUrl).toBe(webhookUrl);
  });

  it.each([
    [{ ignoreAlarmConfiguration: 'true' }, true],
    [{ ignoreAlarmConfiguration: true }, true],
    [{ ignoreAlarmConfiguration: 'false' }, false],
    [{ ignoreAlarmConfiguration: false }, false],
  ])('reads ignoreAlarmConfiguration from %o as %s', (context, expected) => {
    expect(readStageConfig(from(context)).ignoreAlarmConfiguration).toBe(expected);
  });

  it('reads a custom domain and the CI role', () => {
    const certificateArn =
      'arn:aws:acm:eu-west-1:123456789012:certificate/0e9a8b7c-6d5e-4f3a-9b2c-1d0e9f8a7b6c';
    const ciRoleArn = 'arn:aws:iam::123456789012:role/PlantStore-ci-GithubDeployRole-AbC123';
    expect(
      readStageConfig(from({ domainName: 'plants.example.com', certificateArn, ciRoleArn })),
    ).toMatchObject({
      customDomain: { domainName: 'plants.example.com', certificateArn },
      ciRoleArn,
    });
  });

  it.each([
    ['dev', {}, 'AllAtOnce'],
    ['any other stage', { stage: 'prod' }, 'Canary10Percent5Minutes'],
    ['a stage that asks for it', { stage: 'prod', deploymentConfig: 'AllAtOnce' }, 'AllAtOnce'],
    [
      'dev when asked for a canary',
      { deploymentConfig: 'Linear10PercentEvery1Minute' },
      'Linear10PercentEvery1Minute',
    ],
  ])('shifts traffic for %s with %o as %s', (_who, context, expected) => {
    expect(readStageConfig(from(context)).deploymentConfig).toBe(expected);
  });

  it('reads every key, parsing `-c` strings into numbers', () => {
    expect(
      readStageConfig(
        from({
          stage: 'prod',
          alarmEmail: 'oncall@example.com',
          authDomainPrefix: 'acme-plants-prod',
          throttleRateLimit: '50',
          throttleBurstLimit: 100,
        }),
      ),
    ).toMatchObject({
      stage: 'prod',
      alarmEmail: 'oncall@example.com',
      authDomainPrefix: 'acme-plants-prod',
      throttlingRateLimit: 50,
      throttlingBurstLimit: 100,
    });
  });

  it('builds an external issuer from authIssuer, a comma-separated authAudience and optional keys', () => {
    expect(
      readStageConfig(
        from({
          authIssuer: 'https://login.microsoftonline.com/tenant-id/v2.0',
          authAudience: 'api://plants, api://plants-legacy',
          authJwksUrl: 'https://login.microsoftonline.com/tenant-id/discovery/v2.0/keys',
          authScope: 'Plants.Write',
          authReadScope: 'Plants.Read',
        }),
      ).externalIssuer,
    ).toEqual({
      issuer: 'https://login.microsoftonline.com/tenant-id/v2.0',
      audiences: ['api://plants', 'api://plants-legacy'],
      jwksUrl: 'https://login.microsoftonline.com/tenant-id/discovery/v2.0/keys',
      scopes: { 'plants/write': 'Plants.Write', 'plants/read': 'Plants.Read' },
    });
  });

  it("keeps the API's own name for each scope the issuer is not given another for", () => {
    const issuer = { authIssuer: 'https://issuer.example.com', authAudience: 'plants' };

    expect(readStageConfig(from(issuer)).externalIssuer?.scopes).toEqual({});
    expect(
      readStageConfig(from({ ...issuer, authReadScope: 'read:plants' })).externalIssuer?.scopes,
    ).toEqual({ 'plants/read': 'read:plants' });
  });

  it.each([
    [{ stage: 'Prod' }, /"stage"/],
    [{ stage: 'prod_1' }, /"stage"/],
    [{ stage: 'a-stage-name-that-is-too-long' }, /"stage"/],
    [{ alarmEmail: 'not-an-address' }, /"alarmEmail"/],
    [{ authDomainPrefix: 'my-aws-plants' }, /"authDomainPrefix"/],
    [{ authDomainPrefix: 'Plants' }, /"authDomainPrefix"/],
    [{ throttleRateLimit: '0' }, /"throttleRateLimit"/],
    [{ throttleBurstLimit: 'many' }, /"throttleBurstLimit"/],
    [{ deploymentConfig: 'Canary10Percent5Minute' }, /"deploymentConfig" must be one of/],
    [{ deploymentConfig: 'CodeDeployDefault.LambdaAllAtOnce' }, /"deploymentConfig"/],
    [{ authIssuer: 'https://issuer.example.com' }, /"authAudience" is required/],
    [{ authIssuer: 'http://issuer.example.com', authAudience: 'plants' }, /https URL/],
    [{ authIssuer: 'https://i.example.com', authAudience: 'p', authJwksUrl: 'x' }, /"authJwksUrl"/],
    [{ authAudience: 'plants' }, /only together with "authIssuer"/],
    [{ authReadScope: 'Plants.Read' }, /"authReadScope" applies only together with "authIssuer"/],
    [{ stage: 42 }, /"stage" must be a string/],
    [{ stage: 'ci' }, /"stage" cannot be "ci": PlantStore-ci is the CI stack's name/],
    [{ stage: 'laws' }, /stage "laws" contains "aws".*-c authDomainPrefix=/],
    [{ stage: 'amazonia' }, /stage "amazonia" contains "amazon"/],
    [{ stage: 'cognito-test' }, /stage "cognito-test" contains "cognito"/],
    [{ ignoreAlarmConfiguration: 'yes' }, /"ignoreAlarmConfiguration" must be true or false/],
    [{ domainName: 'plants.example.com' }, /"domainName" and "certificateArn" go together/],
    [
      {
        certificateArn:
          'arn:aws:acm:eu-west-1:123456789012:certificate/0e9a8b7c-6d5e-4f3a-9b2c-1d0e9f8a7b6c',
      },
      /"domainName" and "certificateArn" go together/,
    ],
    [{ domainName: 'https://plants.example.com', certificateArn: 'x' }, /"domainName"/],
    [{ domainName: 'Plants.example.com', certificateArn: 'x' }, /"domainName"/],
    [{ domainName: 'plants.example.com', certificateArn: 'arn:aws:iam::1:x' }, /"certificateArn"/],
    [{ ciRoleArn: 'PlantStore-ci-deploy' }, /"ciRoleArn" must be an IAM role ARN/],
    [{ webhookUrl: 'http://hooks.example.com/plant' }, /"webhookUrl" must be an https URL/],
    [{ webhookUrl: 'hooks.example.com/plant' }, /"webhookUrl" must be an https URL/],
    [{ webhookUrl: 'ftp://hooks.example.com/' }, /"webhookUrl" must be an https URL/],
    [{ webhookUrl: true }, /"webhookUrl" must be a string/],
    [{ webhookConcurrency: '5' }, /"webhookConcurrency" applies only together with "webhookUrl"/],
    [{ webhookUrl: 'https://h.example.com/', webhookConcurrency: '1' }, /from 2 to 1000/],
    [{ webhookUrl: 'https://h.example.com/', webhookConcurrency: 1001 }, /from 2 to 1000/],
    [{ webhookUrl: 'https://h.example.com/', webhookConcurrency: 2.5 }, /positive integer/],
  ])('rejects %o at synth, naming the key', (context, message) => {
    expect(() => readStageConfig(from(context))).toThrow(StageConfigError);
    expect(() => readStageConfig(from(context))).toThrow(message);
  });

  it.each([
    ['its own Cognito domain prefix', { stage: 'laws', authDomainPrefix: 'plants-legal' }],
    [
      'an external issuer (no Cognito domain)',
      { stage: 'laws', authIssuer: 'https://issuer.example.com', authAudience: 'plants' },
    ],
  ])('accepts a stage containing "aws" with %s', (_with, context) => {
    expect(readStageConfig(from(context)).stage).toBe('laws');
  });
});

describe('readStageConfig with a webhookUrl', () => {
  it.each([
    ['https://user:hunter2@hooks.example.com/plant'],
    ['https://hunter2@hooks.example.com/plant'],
    ['https://:hunter2@hooks.example.com/plant'],
  ])('refuses credentials in %s, without repeating them', (webhookUrl) => {
    expect(() => readStageConfig(from({ webhookUrl }))).toThrow(
      /^context "webhookUrl" must not carry credentials \(user:password@\): /,
    );
    expect(() => readStageConfig(from({ webhookUrl }))).not.toThrow(/hunter2/);
  });

  it.each([
    ['https://127.0.0.1/', 'a loopback host'],
    ['https://127.1.2.3:8443/plant', 'a loopback host'],
    ['https://2130706433/', 'a loopback host'],
    ['https://[::1]/', 'a loopback host'],
    ['https://[::ffff:127.0.0.1]/', 'a loopback host'],
    ['https://localhost/', 'a loopback host'],
    ['https://LOCALHOST./', 'a loopback host'],
    ['https://hooks.localhost/', 'a loopback host'],
    ['https://169.254.169.254/latest/meta-data/', 'a link-local host'],
    ['https://169.254.0.1/', 'a link-local host'],
    ['https://[fe80::1]/', 'a link-local host'],
    ['https://[febf::1]/', 'a link-local host'],
    ['https://[::ffff:169.254.169.254]/', 'a link-local host'],
    ['https://0.0.0.0/', 'an unspecified address'],
    ['https://0/', 'an unspecified address'],
    ['https://[::]/', 'an unspecified address'],
  ])('refuses %s, which names %s', (webhookUrl, what) => {
    expect(() => readStageConfig(from({ webhookUrl }))).toThrow(StageConfigError);
    expect(() => readStageConfig(from({ webhookUrl }))).toThrow(
      new RegExp(`^context "webhookUrl" names ${what} \\(.+\\): .+: \\S+$`),
    );
    expect(() => readStageConfig(from({ webhookUrl }))).toThrow(`: ${webhookUrl}`);
  });

  it.each([
    'https://128.0.0.1/',
    'https://169.255.0.1/',
    'https://[fec0::1]/',
    'https://localhost.example.com/',
    'https://hooks.example.com:8443/plant?team=garden',
  ])('accepts %s', (webhookUrl) => {
    expect(readStageConfig(from({ webhookUrl })).webhookUrl).toBe(webhookUrl);
  });

  it("names the stage's entry when that is where the URL is", () => {
    const stages = { prod: { webhookUrl: 'https://169.254.169.254/' } };

    expect(() => readStageConfig(from({ stages }))).toThrow(
      /^"stages\.prod\.webhookUrl" names a link-local host/,
    );
  });
});

describe('readStageConfig with per-stage settings in context.stages', () => {
  const prodSettings = {
    alarmEmail: 'oncall@example.com',
    webhookUrl: 'https://hooks.example.com/plant/webhook',
    webhookConcurrency: 3,
    domainName: 'plants.example.com',
    certificateArn:
      'arn:aws:acm:eu-west-1:123456789012:certificate/0e9a8b7c-6d5e-4f3a-9b2c-1d0e9f8a7b6c',
    deploymentConfig: 'Canary10Percent10Minutes',
  };
  const stages = { dev: {}, prod: prodSettings };

  it('builds prod whole from -c stage=prod alone', () => {
    expect(readStageConfig(from({ stages, stage: 'prod' }))).toMatchObject({
      stage: 'prod',
      alarmEmail: prodSettings.alarmEmail,
      webhookUrl: prodSettings.webhookUrl,
      webhookConcurrency: 3,
      customDomain: {
        domainName: 'plants.example.com',
        certificateArn: prodSettings.certificateArn,
      },
      deploymentConfig: 'Canary10Percent10Minutes',
    });
  });

  it.each([
    ['dev, which has an entry', { stage: 'dev' }],
    ['a stage without one', { stage: 'alice' }],
    ['the default stage', {}],
  ])("gives %s none of prod's settings", (_who, context) => {
    const config = readStageConfig(from({ stages, ...context }));
    for (const key of ['alarmEmail', 'webhookUrl', 'webhookConcurrency', 'customDomain'] as const) {
      expect(config[key]).toBeUndefined();
    }
  });

  it("lets a -c value override the stage's for one run, and a blank one turn it off", () => {
    expect(
      readStageConfig(from({ stages, stage: 'prod', alarmEmail: 'release@example.com' })),
    ).toMatchObject({ alarmEmail: 'release@example.com', webhookUrl: prodSettings.webhookUrl });
    expect(
      readStageConfig(from({ stages, stage: 'prod', webhookUrl: '', webhookConcurrency: '' }))
        .webhookUrl,
    ).toBeUndefined();
  });

  it.each([
    [
      { prod: { webhookURL: 'https://h.example.com/' } },
      /"stages.prod" has an unknown key "webhookURL": did you mean "webhookUrl"\?/,
    ],
    [
      { prod: { webhook_url: 'https://h.example.com/' } },
      /"stages.prod" has an unknown key "webhook_url": did you mean "webhookUrl"\?/,
    ],
    [
      { prod: { alarmMail: 'a@example.com' } },
      /"stages.prod" has an unknown key "alarmMail"; the keys are alarmEmail, /,
    ],
    [
      { prod: { ignoreAlarmConfiguration: true } },
      /"ignoreAlarmConfiguration": it is given with -c for one run only/,
    ],
    [{ prod: { stage: 'prod' } }, /unknown key "stage"/],
    [
      { prod: { webhookUrl: 'http://h.example.com/' } },
      /"stages.prod.webhookUrl" must be an https URL/,
    ],
    [
      { prod: { domainName: 'plants.example.com' } },
      /"stages.prod.domainName" and "certificateArn" go together/,
    ],
    [{ laws: {} }, /stages.laws: stage "laws" contains "aws"/],
    [{ Prod: {} }, /context "stages" entry "Prod" must be lowercase/],
    [{ prod: 'oncall@example.com' }, /"stages.prod" must be an object of settings/],
  ])("fails any stage's synth on a mistake in another stage's entry: %o", (entries, message) => {
    expect(() => readStageConfig(from({ stages: entries, stage: 'dev' }))).toThrow(
      StageConfigError,
    );
    expect(() => readStageConfig(from({ stages: entries, stage: 'dev' }))).toThrow(message);
  });

  it('refuses a context "stages" that is not an object of stages', () => {
    expect(() => readStageConfig(from({ stages: ['prod'] }))).toThrow(/"stages" must be an object/);
  });

  it("accepts every key it documents in a stage's entry", () => {
    const everything: Record<string, unknown> = {
      ...prodSettings,
      authIssuer: 'https://issuer.example.com',
      authAudience: 'plants',
      authJwksUrl: 'https://issuer.example.com/keys',
      authScope: 'w',
      authReadScope: 'r',
      authDomainPrefix: 'acme-plants',
      throttleRateLimit: 10,
      throttleBurstLimit: 20,
      ciRoleArn: 'arn:aws:iam::123456789012:role/deploy',
    };
    expect(Object.keys(everything).sort()).toEqual([...stageSettingKeys].sort());
    expect(readStageConfig(from({ stages: { prod: everything }, stage: 'prod' })).stage).toBe(
      'prod',
    );
  });

  it("reads every stage of the project's cdk.json", () => {
    const { context } = JSON.parse(readFileSync(path.join(projectRoot, 'cdk.json'), 'utf8')) as {
      context: Record<string, unknown> & { stages: Record<string, unknown> };
    };
    expect(Object.keys(context.stages)).toEqual(expect.arrayContaining(['dev', 'prod']));
    for (const stage of Object.keys(context.stages)) {
      expect(readStageConfig(from({ ...context, stage })).stage).toBe(stage);
    }
  });
});

describe('checkContextKeys', () => {
  const known = [...stageContextKeys, 'githubRepo'];

  it("accepts the app's keys, the CDK's namespaced ones and its own kebab-case ones", () => {
    const keys = [
      'stage',
      'stages',
      'ignoreAlarmConfiguration',
      ...stageSettingKeys,
      'githubRepo',
      '@aws-cdk/core:bootstrapQualifier',
      '@aws-cdk-containers/ecs-service-extensions:enableDefaultLogDriver',
      '@aws-cdk/core.TreeMetadata:maxNodes',
      'aws:cdk:bundling-stacks',
      'aws-cdk:enableDiffNoFail',
      'availability-zones:account=123456789012:region=eu-west-1',
      'acknowledged-issue-numbers',
      'cli-telemetry',
      'cdk-migrate',
      'assets-ecr-repository-name',
    ];

    expect(() => checkContextKeys(keys, known)).not.toThrow();
  });

  it("accepts every key of the project's cdk.json context", () => {
    const { context } = JSON.parse(readFileSync(path.join(projectRoot, 'cdk.json'), 'utf8')) as {
      context: Record<string, unknown>;
    };

    expect(() => checkContextKeys(Object.keys(context), known)).not.toThrow();
  });

  it.each([
    ['webhookURL', /context has an unknown key "webhookURL" \(.*\): did you mean "webhookUrl"\?/],
    ['webhook-url', /unknown key "webhook-url" .*: did you mean "webhookUrl"\?/],
    ['webhook_url', /unknown key "webhook_url" .*: did you mean "webhookUrl"\?/],
    ['Stage', /unknown key "Stage" .*: did you mean "stage"\?/],
    ['githubrepo', /unknown key "githubrepo" .*: did you mean "githubRepo"\?/],
    ['alarmMail', /unknown key "alarmMail" .*; the keys are stage, .*, githubRepo$/],
    ['alarm_mail', /unknown key "alarm_mail" /],
  ])('refuses %s, as a misspelt key in a stage entry is', (key, message) => {
    expect(() => checkContextKeys(['stage', key], known)).toThrow(StageConfigError);
    expect(() => checkContextKeys(['stage', key], known)).toThrow(message);
  });
});
