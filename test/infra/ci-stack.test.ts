import { App, Validations } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { readCiConfig } from '../../infra/ci-config.ts';
import { PlantStoreCiStack, type PlantStoreCiStackProps } from '../../infra/ci-stack.ts';
import { StageConfigError } from '../../infra/stage-config.ts';
import { onlyResource } from '../support/synth.ts';

type Statement = {
  Action: string | string[];
  Effect: string;
  Resource?: unknown;
  Principal?: unknown;
  Condition?: unknown;
};

const repository = 'acme/plant-store';
const subjectPrefix = 'repo:acme@1234567/plant-store@7654321';

/** The CI stack in an app of its own, not yet synthesized. */
function buildCi(
  props: Partial<PlantStoreCiStackProps> = {},
  context: Record<string, unknown> = {},
): { app: App; stack: PlantStoreCiStack } {
  // CloudFormation's validation of this stack is app.test.ts's, on the app `cdk synth` builds.
  const app = new App({ context, builtinCloudFormationValidation: false });
  const stack = new PlantStoreCiStack(app, 'PlantStore-ci', {
    repository,
    environments: ['prod'],
    ...props,
  });
  return { app, stack };
}

function synthCi(
  props: Partial<PlantStoreCiStackProps> = {},
  context: Record<string, unknown> = {},
): { app: App; stack: PlantStoreCiStack; template: Template } {
  const { app, stack } = buildCi(props, context);
  return { app, stack, template: Template.fromStack(stack) };
}

/** An ARN built with Fn::Join of strings and pseudo parameters, as text: `<AWS::AccountId>`. */
const arnText = (value: unknown): string => {
  if (typeof value === 'string') return value;
  const join = (value as { 'Fn::Join'?: [string, unknown[]] })['Fn::Join'];
  if (join) return join[1].map(arnText).join(join[0]);
  return `<${(value as { Ref: string }).Ref}>`;
};

const trustStatements = (template: Template): Statement[] =>
  (
    onlyResource(template, 'AWS::IAM::Role')[1].Properties.AssumeRolePolicyDocument as {
      Statement: Statement[];
    }
  ).Statement;
const policyStatements = (template: Template): Statement[] =>
  Object.values(template.findResources('AWS::IAM::Policy')).flatMap(
    (policy) => (policy.Properties.PolicyDocument as { Statement: Statement[] }).Statement,
  );

describe('PlantStoreCiStack OIDC provider', () => {
  it("is GitHub's, native (AWS::IAM::OIDCProvider, no custom resource), for the STS audience", () => {
    const { template } = synthCi();
    template.resourceCountIs('AWS::IAM::OIDCProvider', 1);
    template.hasResourceProperties('AWS::IAM::OIDCProvider', {
      Url: 'https://token.actions.githubusercontent.com',
      ClientIdList: ['sts.amazonaws.com'],
    });
    template.resourceCountIs('AWS::Lambda::Function', 0);
    template.resourceCountIs('Custom::AWSCDKOpenIdConnectProvider', 0);
  });

  it('reuses an existing provider when its ARN is given', () => {
    const existing = 'arn:aws:iam::123456789012:oidc-provider/token.actions.githubusercontent.com';
    const { template } = synthCi({ existingOidcProviderArn: existing });
    template.resourceCountIs('AWS::IAM::OIDCProvider', 0);
    expect(trustStatements(template)[0]?.Principal).toEqual({ Federated: existing });
  });
});

describe('PlantStoreCiStack deploy role trust', () => {
  it("trusts only the repository's main branch and its prod environment, audience sts.amazonaws.com", () => {
    const { template } = synthCi();
    const [providerId] = onlyResource(template, 'AWS::IAM::OIDCProvider');
    expect(trustStatements(template)).toEqual([
      {
        Effect: 'Allow',
        Action: 'sts:AssumeRoleWithWebIdentity',
        Principal: { Federated: { Ref: providerId } },
        Condition: {
          StringEquals: {
            'token.actions.githubusercontent.com:aud': 'sts.amazonaws.com',
            'token.actions.githubusercontent.com:sub': [
              'repo:acme/plant-store:ref:refs/heads/main',
              'repo:acme/plant-store:environment:prod',
            ],
          },
        },
      },
    ]);
  });

  it('lists each environment it is given, exactly, with no wildcard', () => {
    const { template } = synthCi({ environments: ['staging', 'prod'] });
    const condition = trustStatements(template)[0]?.Condition as {
      StringEquals: Record<string, string[]>;
    };
    expect(condition.StringEquals['token.actions.githubusercontent.com:sub']).toEqual([
      'repo:acme/plant-store:ref:refs/heads/main',
      'repo:acme/plant-store:environment:staging',
      'repo:acme/plant-store:environment:prod',
    ]);
    expect(JSON.stringify(trustStatements(template))).not.toContain('*');
  });
  it('with githubSubjectPrefix, trusts exactly its main branch and environments, nothing name-only', () => {
    const { template } = synthCi({ subjectPrefix, environments: ['staging', 'prod'] });
    const condition = trustStatements(template)[0]?.Condition as {
      StringEquals: Record<string, string[]>;
    };
    expect(condition.StringEquals).toEqual({
      'token.actions.githubusercontent.com:aud': 'sts.amazonaws.com',
      'token.actions.githubusercontent.com:sub': [
        'repo:acme@1234567/plant-store@7654321:ref:refs/heads/main',
        'repo:acme@1234567/plant-store@7654321:environment:staging',
        'repo:acme@1234567/plant-store@7654321:environment:prod',
      ],
    });
    expect(JSON.stringify(trustStatements(template))).not.toContain('repo:acme/plant-store');
    expect(JSON.stringify(trustStatements(template))).not.toContain('*');
  });

  it('warns at synth which subjects apply when it trusts the name-only form, and not otherwise', () => {
    const nameOnly = Annotations.fromStack(synthCi().stack);
    nameOnly.hasWarning(
      '/PlantStore-ci/GithubDeploy',
      Match.stringLikeRegexp(
        'repo:acme/plant-store:.*15 July 2026.*-c githubSubjectPrefix=.*gh api repos/acme/plant-store/actions/oidc/customization/sub',
      ),
    );
    Annotations.fromStack(synthCi({ subjectPrefix }).stack).hasNoWarning('*', Match.anyValue());
  });
});

describe('PlantStoreCiStack deploy role permissions', () => {
  it('may assume only the CDK bootstrap roles of this account and region, and has no managed policy', () => {
    const { template } = synthCi();
    const [, role] = onlyResource(template, 'AWS::IAM::Role');
    expect(role.Properties).not.toHaveProperty('ManagedPolicyArns');
    const assume = policyStatements(template).filter((statement) =>
      [statement.Action].flat().some((action) => action.startsWith('sts:')),
    );
    expect(assume).toHaveLength(1);
    const [statement] = assume as [Statement];
    expect(statement.Action).toEqual(['sts:AssumeRole', 'sts:TagSession']);
    expect((statement.Resource as unknown[]).map(arnText)).toEqual(
      ['deploy', 'file-publishing', 'lookup'].map(
        (kind) =>
          `arn:<AWS::Partition>:iam::<AWS::AccountId>:role/cdk-hnb659fds-${kind}-role-<AWS::AccountId>-<AWS::Region>`,
      ),
    );
  });

  it("may do nothing else: each stage stack lets it read that stage's own pool (ciRoleArn)", () => {
    const { template } = synthCi();
    const rest = policyStatements(template).filter(
      (statement) => ![statement.Action].flat().some((action) => action.startsWith('sts:')),
    );
    expect(rest).toEqual([]);
    expect(JSON.stringify(policyStatements(template))).not.toContain('cognito-idp');
    for (const statement of policyStatements(template)) expect(statement.Effect).toBe('Allow');
  });

  it('lets a session outlast the longest deploy (workflows.test.ts holds the jobs to it)', () => {
    const { template } = synthCi();
    template.hasResourceProperties('AWS::IAM::Role', { MaxSessionDuration: 9000 });
  });

  it("follows the bootstrap qualifier of the app's context", () => {
    const { template } = synthCi({}, { '@aws-cdk/core:bootstrapQualifier': 'plants01' });
    expect(JSON.stringify(policyStatements(template))).toContain('cdk-plants01-deploy-role-');
    expect(JSON.stringify(policyStatements(template))).not.toContain('hnb659fds');
  });

  it('outputs the role ARN for the repository variable', () => {
    const { template } = synthCi();
    const [roleId] = onlyResource(template, 'AWS::IAM::Role');
    template.hasOutput('DeployRoleArn', { Value: { 'Fn::GetAtt': [roleId, 'Arn'] } });
  });
});

describe('PlantStoreCiStack cdk-nag', () => {
  it('finds no unacknowledged error or warning', () => {
    const { stack } = synthCi();
    const report = new AwsSolutionsChecks(undefined, { verbose: true }).validateScope(stack);
    expect(report.violations.map((violation) => violation.ruleName)).toEqual([]);
  });

  it('lets the app synthesize with the pack registered, as `cdk synth` does', () => {
    // Not synthesized before: a second `synth()` returns the first assembly, plugins unrun.
    const { app } = buildCi();
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    expect(() => app.synth()).not.toThrow();
  });
});

describe('readCiConfig', () => {
  const from =
    (context: Record<string, unknown>) =>
    (key: string): unknown =>
      context[key];

  it('asks for no CI stack without githubRepo', () => {
    expect(readCiConfig(from({}))).toBeUndefined();
  });

  it('reads the repository, the environments (default prod) and an existing provider', () => {
    expect(readCiConfig(from({ githubRepo: repository }))).toEqual({
      repository,
      environments: ['prod'],
      existingOidcProviderArn: undefined,
      subjectPrefix: undefined,
    });
    const existing = 'arn:aws:iam::123456789012:oidc-provider/token.actions.githubusercontent.com';
    expect(
      readCiConfig(
        from({
          githubRepo: repository,
          githubEnvironments: 'staging, prod',
          githubOidcProviderArn: existing,
        }),
      ),
    ).toEqual({
      repository,
      environments: ['staging', 'prod'],
      existingOidcProviderArn: existing,
      subjectPrefix: undefined,
    });
  });

  it('reads the immutable subject prefix of the same repository', () => {
    expect(
      readCiConfig(from({ githubRepo: repository, githubSubjectPrefix: ` ${subjectPrefix} ` }))
        ?.subjectPrefix,
    ).toBe(subjectPrefix);
  });

  it.each([
    [{ githubRepo: 'plant-store' }, /"githubRepo"/],
    [{ githubRepo: 'acme/plant-store/extra' }, /"githubRepo"/],
    [{ githubRepo: 'acme/*' }, /"githubRepo"/],
    [{ githubRepo: 'acme/..' }, /"githubRepo"/],
    [{ githubRepo: 42 }, /"githubRepo" must be a string/],
    [{ githubRepo: repository, githubEnvironments: 'prod,*' }, /"githubEnvironments"/],
    [{ githubRepo: repository, githubEnvironments: 'pr:od' }, /"githubEnvironments"/],
    [
      {
        githubRepo: repository,
        githubOidcProviderArn: 'arn:aws:iam::123456789012:oidc-provider/example.com',
      },
      /"githubOidcProviderArn"/,
    ],
    [{ githubRepo: repository, githubSubjectPrefix: 'repo:acme/plant-store' }, /immutable/],
    [
      { githubRepo: repository, githubSubjectPrefix: `${subjectPrefix}:ref:refs/heads/main` },
      /"githubSubjectPrefix"/,
    ],
    [
      { githubRepo: repository, githubSubjectPrefix: 'repo:acme@1234567/other@7654321' },
      /names acme\/other, but "githubRepo" is acme\/plant-store/,
    ],
    [
      { githubRepo: repository, githubSubjectPrefix: 'repo:Acme@1234567/plant-store@7654321' },
      /"githubSubjectPrefix" names Acme\/plant-store/,
    ],
    [
      { githubSubjectPrefix: subjectPrefix, githubRepo: repository.replace('/', '@1/') },
      /"githubRepo"/,
    ],
  ])('rejects %o at synth, naming the key', (context, message) => {
    expect(() => readCiConfig(from(context))).toThrow(StageConfigError);
    expect(() => readCiConfig(from(context))).toThrow(message);
  });
});
