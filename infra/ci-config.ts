import type { GithubDeployRoleProps } from './constructs/github-deploy-role.ts';
import { type ContextReader, contextText, StageConfigError } from './stage-config.ts';

/**
 * The CI stack's settings, read from CDK context (docs/deploy.md#context-keys); without
 * `githubRepo` there is no CI stack.
 */
export type CiConfig = GithubDeployRoleProps;

/** GitHub's own rules for owner and repository names. */
const repositoryPattern = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})\/[A-Za-z0-9._-]{1,100}$/;
const environmentPattern = /^[A-Za-z0-9._-]{1,255}$/;
const oidcProviderArnPattern =
  /^arn:aws[a-z-]*:iam::\d{12}:oidc-provider\/token\.actions\.githubusercontent\.com$/;

export function readCiConfig(context: ContextReader): CiConfig | undefined {
  const repository = contextText(context, 'githubRepo');
  if (repository === undefined) return undefined;
  if (!repositoryPattern.test(repository) || repository.endsWith('/..')) {
    throw new StageConfigError(`context "githubRepo" must be owner/name: ${repository}`);
  }
  const environments = (contextText(context, 'githubEnvironments') ?? 'prod')
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  for (const name of environments) {
    if (!environmentPattern.test(name)) {
      throw new StageConfigError(
        `context "githubEnvironments" must be a comma list of environment names: ${name}`,
      );
    }
  }
  const existingOidcProviderArn = contextText(context, 'githubOidcProviderArn');
  if (
    existingOidcProviderArn !== undefined &&
    !oidcProviderArnPattern.test(existingOidcProviderArn)
  ) {
    throw new StageConfigError(
      `context "githubOidcProviderArn" must be the ARN of the token.actions.githubusercontent.com provider: ${existingOidcProviderArn}`,
    );
  }
  const subjectPrefix = readSubjectPrefix(context, repository);
  return { repository, environments, existingOidcProviderArn, subjectPrefix };
}

/**
 * GitHub's immutable subject prefix names the repository as `<owner>@<owner id>/<name>@<repo id>`.
 * It must name the same repository as `githubRepo`, spelled the same way: IAM compares subjects
 * exactly, and a prefix copied from another repository would trust that one instead.
 */
const subjectPrefixPattern = /^repo:([A-Za-z0-9-]{1,39})@(\d+)\/([A-Za-z0-9._-]{1,100})@(\d+)$/;

function readSubjectPrefix(context: ContextReader, repository: string): string | undefined {
  const prefix = contextText(context, 'githubSubjectPrefix');
  if (prefix === undefined) return undefined;
  const match = subjectPrefixPattern.exec(prefix);
  if (match === null) {
    throw new StageConfigError(
      `context "githubSubjectPrefix" must be GitHub's immutable subject prefix, repo:<owner>@<owner id>/<name>@<repo id> (sub_claim_prefix of gh api repos/${repository}/actions/oidc/customization/sub): ${prefix}`,
    );
  }
  const [, owner, , name] = match;
  if (`${owner}/${name}` !== repository) {
    throw new StageConfigError(
      `context "githubSubjectPrefix" names ${owner}/${name}, but "githubRepo" is ${repository}: ${prefix}`,
    );
  }
  return prefix;
}
