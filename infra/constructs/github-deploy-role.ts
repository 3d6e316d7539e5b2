import { Annotations, Aws, DefaultStackSynthesizer, Duration } from 'aws-cdk-lib';
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
   * The repository's subject prefix with immutable ids, `repo:<owner>@<owner id>/<name>@<repo id>`,
   * which GitHub uses for repositories created or renamed since 15 July 2026 and for those that opt
   * in (`gh api repos/<owner>/<name>/actions/oidc/customization/sub`, field `sub_claim_prefix`).
   * @default - the name-only prefix `repo:<owner>/<name>`, which older repositories still use
   */
  readonly subjectPrefix?: string;
  /**
   * The qualifier `cdk bootstrap` was run with.
   * @default - context `@aws-cdk/core:bootstrapQualifier`, else CDK's default `hnb659fds`
   */
  readonly bootstrapQualifier?: string;
}

/**
 * How long one role session lasts: the whole deploy job runs on it, and `cdk deploy` waits inside
 * it while CodeDeploy shifts traffic, for up to the longest deployment config offered plus the
 * pre-traffic hook; the CLI renews its hour-long bootstrap role sessions from it meanwhile
 * (docs/decisions/0033-deploy-time-budget.md). test/infra/workflows.test.ts holds the jobs'
 * timeouts and the session the workflow asks for to this, and this to the longest shift.
 */
export const deploySessionDuration = Duration.minutes(150);

/**
 * The role GitHub Actions assumes with its OIDC token (no stored keys). It trusts the `main`
 * branch and the named environments of one repository, for the STS audience only, and may do
 * nothing but assume the CDK bootstrap roles of this account and region (which deploy through
 * CloudFormation). Each stage stack that is told this role's ARN lets it read that stage's machine
 * client secret, for the checks after the deploy (`PlantStoreStackProps.ciRoleArn`).
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
    // requests (`<prefix>:pull_request`) and other branches match neither. Exact values with
    // StringEquals, no wildcard: a new environment or branch gets no access until listed here.
    // One prefix only: GitHub sends a repository either the immutable form or the name-only one.
    const prefix = props.subjectPrefix ?? `repo:${props.repository}`;
    this.trustedSubjects = [
      `${prefix}:ref:refs/heads/main`,
      ...props.environments.map((name) => `${prefix}:environment:${name}`),
    ];
    if (props.subjectPrefix === undefined) {
      Annotations.of(this).addWarningV2(
        'plant-store:githubSubjectName',
        `The deploy role trusts the name-only subject ${prefix}:…, which GitHub sends only for ` +
          'repositories created before 15 July 2026 that have not opted into immutable subjects. ' +
          'A newer or renamed repository gets repo:<owner>@<owner id>/<name>@<repo id>:…: pass ' +
          `-c githubSubjectPrefix=<sub_claim_prefix of gh api repos/${props.repository}/actions/oidc/customization/sub>.`,
      );
    }

    this.role = new Role(this, 'Role', {
      assumedBy: new WebIdentityPrincipal(this.oidcProvider.oidcProviderArn, {
        StringEquals: {
          [`${githubOidcIssuerHost}:aud`]: githubOidcAudience,
          [`${githubOidcIssuerHost}:sub`]: this.trustedSubjects,
        },
      }),
      description: `GitHub Actions of ${props.repository}: assume the CDK bootstrap roles to deploy`,
      maxSessionDuration: deploySessionDuration,
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
  }
}
