import type { StackProps } from 'aws-cdk-lib';
import { CfnOutput, Stack } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import type { CiConfig } from './ci-config.ts';
import { GithubDeployRole } from './constructs/github-deploy-role.ts';

export interface PlantStoreCiStackProps extends StackProps, CiConfig {}

/**
 * What GitHub Actions needs in the account to deploy the stages: GitHub's OIDC provider and the
 * deploy role. Deployed once, by hand, with `npx cdk deploy PlantStore-ci -c githubRepo=owner/name`.
 */
export class PlantStoreCiStack extends Stack {
  constructor(scope: Construct, id: string, props: PlantStoreCiStackProps) {
    super(scope, id, props);

    const { role } = new GithubDeployRole(this, 'GithubDeploy', props);
    new CfnOutput(this, 'DeployRoleArn', {
      description:
        'Set as the repository variable AWS_DEPLOY_ROLE_ARN (each stage gets it as ciRoleArn)',
      value: role.roleArn,
    });
  }
}
