import { Aws, DefaultStackSynthesizer, Duration, Validations } from 'aws-cdk-lib';
import type { IOidcProvider } from 'aws-cdk-lib/aws-iam';
import {
  Effect,
  OidcProviderNative,
  PolicyStatement,
  Role,
  WebIdentityPrincipal,
} from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';

/** The issuer of GitHub Actions' OIDC tokens, and the audience configure-aws-credentials asks for. */
export const githubOidcIssuerHost = 'token.actions.githubusercontent.com';
export const githubOidcAudience = 'sts.amazonaws.com';

export interface GithubDeployRoleProps {
  /** `owner/name`: only this repository's workflows may assume the role. */
  readonly repository: string;
  /** Its GitHub environments whose jobs may assume the role (besides the `main` branch). */
  readonly environments: readonly string[];
  /**
   * An account holds one provider per issuer URL; pass its ARN when one exists already.
   * @default - a new `AWS::IAM::OIDCProvider` for GitHub
   */
  readonly existingOidcProviderArn?: string;
  /**
   * The qualifier `cdk bootstrap` was run with.
   * @default - context `@aws-cdk/core:bootstrapQualifier`, else CDK's default `hnb659fds`
   */
  readonly bootstrapQualifier?: string;
}

/**
 * The role GitHub Actions assumes with its OIDC token (no stored keys). It trusts the `main`
 * branch and the named environments of one repository, for the STS audience only, and may do
 * nothing but assume the CDK bootstrap roles of this account and region (which deploy through
 * CloudFormation), plus read the machine client's secret for the smoke test.
 */
export class GithubDeployRole extends Construct {
  readonly role: Role;
  readonly oidcProvider: IOidcProvider;
  /** The `sub` claims the role trusts, exactly. */
  readonly trustedSubjects: readonly string[];

  constructor(scope: Construct, id: string, props: GithubDeployRoleProps) {
    super(scope, id);

    // The native AWS::IAM::OIDCProvider rather than the custom-resource provider: no Lambda
    // function to deploy. No thumbprints: IAM trusts GitHub's issuer through its own CA store.
    this.oidcProvider =
      props.existingOidcProviderArn === undefined
        ? new OidcProviderNative(this, 'GithubOidcProvider', {
            url: `https://${githubOidcIssuerHost}`,
            clientIds: [githubOidcAudience],
          })
        : OidcProviderNative.fromOidcProviderArn(
            this,
            'GithubOidcProvider',
            props.existingOidcProviderArn,
          );

    // A job's `sub` names its environment when it has one, else the ref it runs on: pull
    // requests (`repo:o/n:pull_request`) and other branches match neither. Exact values with
    // StringEquals, no wildcard: a new environment or branch gets no access until listed here.
    this.trustedSubjects = [
      `repo:${props.repository}:ref:refs/heads/main`,
      ...props.environments.map((name) => `repo:${props.repository}:environment:${name}`),
    ];

    this.role = new Role(this, 'Role', {
      assumedBy: new WebIdentityPrincipal(this.oidcProvider.oidcProviderArn, {
        StringEquals: {
          [`${githubOidcIssuerHost}:aud`]: githubOidcAudience,
          [`${githubOidcIssuerHost}:sub`]: this.trustedSubjects,
        },
      }),
      description: `GitHub Actions of ${props.repository}: assume the CDK bootstrap roles to deploy`,
      maxSessionDuration: Duration.hours(1),
    });

    const qualifier =
      props.bootstrapQualifier ??
      (this.node.tryGetContext('@aws-cdk/core:bootstrapQualifier') as string | undefined) ??
      DefaultStackSynthesizer.DEFAULT_QUALIFIER;
    // `cdk deploy` publishes assets with the file-publishing role, deploys with the deploy role
    // (which hands CloudFormation its execution role) and may look up context with the lookup
    // role. These are their exact names in this account and region. The bootstrap template trusts
    // TagSession too, which the CLI may use when it assumes them.
    this.role.addToPolicy(
      new PolicyStatement({
        effect: Effect.ALLOW,
        actions: ['sts:AssumeRole', 'sts:TagSession'],
        resources: ['deploy', 'file-publishing', 'lookup'].map(
          (kind) =>
            `arn:${Aws.PARTITION}:iam::${Aws.ACCOUNT_ID}:role/cdk-${qualifier}-${kind}-role-${Aws.ACCOUNT_ID}-${Aws.REGION}`,
        ),
      }),
    );

    // The smoke test gets a token with the machine client's secret (the ClientSecretCommand
    // output); the bootstrap roles cannot read it.
    this.role.addToPolicy(
      new PolicyStatement({
        effect: Effect.ALLOW,
        actions: ['cognito-idp:DescribeUserPoolClient'],
        resources: [`arn:${Aws.PARTITION}:cognito-idp:${Aws.REGION}:${Aws.ACCOUNT_ID}:userpool/*`],
      }),
    );
    Validations.of(this.role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:cognito-idp:<AWS::Region>:<AWS::AccountId>:userpool/*]',
      reason:
        "The smoke test reads the machine client's secret of each stage's user pool, whose id " +
        'CloudFormation generates in another stack at deploy time, so this stack cannot name ' +
        'it. The action only reads app client settings, in this account and region; the same ' +
        'role can already change those pools through CloudFormation.',
    });
  }
}
