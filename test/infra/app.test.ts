import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { type CloudAssembly, synthesizeApp } from '../../bench/support/cloud-assembly.ts';
import { sharedAssembly, sharedAssemblyTimeoutMs } from '../support/shared-assembly.ts';

/**
 * The CDK app as `npx cdk synth -c key=value` runs it (infra/app.ts with the CLI's context),
 * offline; bundling is skipped, which the shipped-asset tests cover.
 */
const noBundling = { 'aws:cdk:bundling-stacks': [] };

const stack = (assembly: CloudAssembly, name: string) => {
  const found = assembly.stacks.find((each) => each.name === name);
  if (found === undefined) throw new Error(`no stack ${name}`);
  return found.template;
};

/**
 * What the app's validation plugins found, as the CLI reads it after a synth: aws-cdk-lib's
 * CloudFormation validation (an error with cdk.json's `validateAgainstDefaultRules`) and the
 * cdk-nag pack infra/app.ts registers. A plugin is listed only if it found something.
 */
async function validationReport(assembly: CloudAssembly): Promise<unknown[]> {
  const report = JSON.parse(
    await readFile(path.join(assembly.outdir, 'validation-report.json'), 'utf8'),
  ) as { pluginReports: unknown[] };
  return report.pluginReports;
}

/** The warnings the app reported for a stack, as the CLI prints them. */
async function warnings(assembly: CloudAssembly, name: string): Promise<string[]> {
  const manifest = JSON.parse(await readFile(path.join(assembly.outdir, 'manifest.json'), 'utf8'));
  const file = manifest.artifacts[name].additionalMetadataFile as string;
  const metadata = JSON.parse(await readFile(path.join(assembly.outdir, file), 'utf8')) as Record<
    string,
    { type: string; data: unknown }[]
  >;
  return Object.values(metadata)
    .flat()
    .filter((entry) => entry.type === 'aws:cdk:warning')
    .map((entry) => String(entry.data));
}

describe('npx cdk synth with the immutable GitHub subject and every optional resource', () => {
  let assembly: CloudAssembly;

  beforeAll(async () => {
    assembly = await sharedAssembly();
  }, sharedAssemblyTimeoutMs);

  // The tests' own synths skip CloudFormation's validation (test/support/synth.ts): the shared one
  // stands for them, with every resource type any configuration of the stage stack has.
  it("passes CloudFormation's validation and cdk-nag in both stacks, as the CLI reads the report", async () => {
    expect(await validationReport(assembly)).toEqual([]);
  });

  it('builds the stage stack with the alarm topic, the webhook and the CI grant asked for', () => {
    const resources = Object.values(stack(assembly, 'PlantStore-dev').Resources);
    const types = new Set(resources.map((resource) => resource.Type));
    for (const type of ['AWS::SNS::Topic', 'AWS::Pipes::Pipe', 'AWS::SecretsManager::Secret']) {
      expect(types).toContain(type);
    }
    const forCi = resources.filter(
      (resource) =>
        resource.Type === 'AWS::IAM::Policy' &&
        JSON.stringify(resource.Properties?.Roles) === '["PlantStore-ci-deploy"]',
    );
    expect(forCi).toHaveLength(1);
  });

  it('trusts the main branch and the prod environment under that prefix only', () => {
    const roles = Object.values(stack(assembly, 'PlantStore-ci').Resources).filter(
      (resource) => resource.Type === 'AWS::IAM::Role',
    );
    expect(roles).toHaveLength(1);
    expect(JSON.stringify(roles[0]?.Properties?.AssumeRolePolicyDocument)).toContain(
      JSON.stringify([
        'repo:example-org@1234/plant-store@5678:ref:refs/heads/main',
        'repo:example-org@1234/plant-store@5678:environment:prod',
      ]),
    );
  });

  it('warns about nothing in the CI stack', async () => {
    expect(await warnings(assembly, 'PlantStore-ci')).toEqual([]);
  });

  it('puts the dev stage on the custom domain', () => {
    const types = Object.values(stack(assembly, 'PlantStore-dev').Resources).map(
      (resource) => resource.Type,
    );
    expect(types).toEqual(
      expect.arrayContaining(['AWS::ApiGatewayV2::DomainName', 'AWS::ApiGatewayV2::ApiMapping']),
    );
  });
});

describe('npx cdk synth with -c keys', () => {
  // stage-config.test.ts has every message; this is the app printing one as the CLI shows it.
  it('refuses a misspelt one, printing the message alone, without a stack trace, and exits 1', async () => {
    const refused = synthesizeApp({
      context: { ...noBundling, webhookURL: 'https://h.example.com/' },
      validate: false,
    });

    await expect(refused).rejects.toThrow(
      // synthesizeApp's own words, then the app's whole stderr.
      /^synth exited with 1:\ncontext has an unknown key "webhookURL" \(.*\): did you mean "webhookUrl"\?\n$/,
    );
  }, 60_000);

  // The stage "ci" is refused by the first check of the values, which runs after the keys'.
  it("takes the CI stack's keys and the CDK's own as keys, going on to read their values", async () => {
    const refused = synthesizeApp({
      context: {
        ...noBundling,
        stage: 'ci',
        githubRepo: 'example-org/plant-store',
        githubEnvironments: 'prod',
        githubOidcProviderArn:
          'arn:aws:iam::123456789012:oidc-provider/token.actions.githubusercontent.com',
        githubSubjectPrefix: 'repo:example-org@1234/plant-store@5678',
        '@aws-cdk/core:bootstrapQualifier': 'hnb659fds',
        'acknowledged-issue-numbers': [32775],
        'cli-telemetry': false,
      },
      validate: false,
    });

    await expect(refused).rejects.toThrow(/^synth exited with 1:\ncontext "stage" cannot be "ci"/);
  }, 60_000);
});
