import { Annotations, Aws, DefaultStackSynthesizer, Duration } from 'aws-cdk-lib';
import {
  Effect,
  OidcProviderNative,
  PolicyStatement,
  Role,
  WebIdentityPrincipal,
} from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';

/** The issuer of GitHub Actions' OIDC tokens, and the audience configure-aws-credentials asks for. */
const githubOidcIssuerHost = 'token.actions.githubusercontent.com';
const githubOidcAudience = 'sts.amazonaws.com';

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
   * The repository's subject prefix with immutable ids, `repo:<owner>@<owner id>/<name>@<repo id>`.
   * @default - the name-only prefix `repo:<owner>/<name>`, which older repositories still use
   */
  readonly subjectPrefix?: string;
}

/**
 * The whole deploy job runs on one role session, `cdk deploy` waiting inside it for the longest
 * traffic shift plus the pre-traffic hook (docs/decisions/0033-deploy-time-budget.md).
 */
export const deploySessionDuration = Duration.minutes(150);

/**
 * The role GitHub Actions assumes with its OIDC token (no stored keys). It trusts the `main`
 * branch and the named environments of one repository, for the STS audience only, and may do
 * nothing but assume the CDK bootstrap roles of this account and region.
 */
export class GithubDeployRole extends Construct {
  readonly role: Role;

  constructor(scope: Construct, id: string, props: GithubDeployRoleProps) {
    super(scope, id);

    // The native AWS::IAM::OIDCProvider rather than the custom-resource provider: no Lambda
    // function to deploy. No thumbprints: IAM trusts GitHub's issuer through its own CA store.
    const oidcProvider =
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
    const trustedSubjects = [
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
      assumedBy: new WebIdentityPrincipal(oidcProvider.oidcProviderArn, {
        StringEquals: {
          [`${githubOidcIssuerHost}:aud`]: githubOidcAudience,
          [`${githubOidcIssuerHost}:sub`]: trustedSubjects,
        },
      }),
      description: `GitHub Actions of ${props.repository}: assume the CDK bootstrap roles to deploy`,
      maxSessionDuration: deploySessionDuration,
    });

    const qualifier =
      (this.node.tryGetContext('@aws-cdk/core:bootstrapQualifier') as string | undefined) ??
      DefaultStackSynthesizer.DEFAULT_QUALIFIER;
    // `cdk deploy` publishes assets with the file-publishing role, deploys with the deploy role
    // and may look up context with the lookup role: their exact names in this account and region.
    // The bootstrap template trusts TagSession too, which the CLI may use when it assumes them.
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
