import { App, Tags, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { PlantStoreStack } from './plant-store-stack.ts';
import { readStageConfig } from './stage-config.ts';

const app = new App();
const config = readStageConfig((key) => app.node.tryGetContext(key));

// The stage is in the stack name, and every physical name derives from it: `-c stage=prod` is a
// second, independent copy in the same account and region.
const stack = new PlantStoreStack(app, `PlantStore-${config.stage}`, {
  ...config,
  description: `Plant Store API (${config.stage}): POST /plants on API Gateway, Lambda and DynamoDB`,
});
Tags.of(stack).add('project', 'plant-store');
Tags.of(stack).add('stage', config.stage);

// The same checks the tests assert: a deploy is refused for what CI would refuse.
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
