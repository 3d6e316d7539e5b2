import { App, Tags, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { operations, routeKey } from '../functions/operations.ts';
import { readCiConfig } from './ci-config.ts';
import { PlantStoreCiStack } from './ci-stack.ts';
import { PlantStoreStack } from './plant-store-stack.ts';
import { readStageConfig } from './stage-config.ts';

const app = new App();
const config = readStageConfig((key) => app.node.tryGetContext(key));

// The stage is in the stack name, and every physical name derives from it: `-c stage=prod` is a
// second, independent copy in the same account and region.
const stack = new PlantStoreStack(app, `PlantStore-${config.stage}`, {
  ...config,
  description: `Plant Store API (${config.stage}): ${operations.map(routeKey).join(', ')} on API Gateway, Lambda and DynamoDB`,
});
Tags.of(stack).add('project', 'plant-store');
Tags.of(stack).add('stage', config.stage);

// The CI role, only when a repository is named: it is deployed once, by hand, not from CI.
const ci = readCiConfig((key) => app.node.tryGetContext(key));
if (ci !== undefined) {
  const ciStack = new PlantStoreCiStack(app, 'PlantStore-ci', {
    ...ci,
    description: `Plant Store API CI: GitHub OIDC provider and deploy role for ${ci.repository}`,
  });
  Tags.of(ciStack).add('project', 'plant-store');
}

// The same checks the tests assert: a deploy is refused for what CI would refuse.
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
