import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { addStacks } from './plant-store-app.ts';

const app = new App();
addStacks(app);

// The same checks the tests assert: a deploy is refused for what CI would refuse.
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
