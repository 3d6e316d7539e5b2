import { type App, Tags } from 'aws-cdk-lib';
import { operations, routeKey } from '../functions/operations.ts';
import { readCiConfig } from './ci-config.ts';
import { PlantStoreCiStack } from './ci-stack.ts';
import { PlantStoreStack } from './plant-store-stack.ts';
import { readStageConfig } from './stage-config.ts';

/**
 * Adds the stacks the app's context asks for: the stage's, and the CI stack when a repository is
 * named. Apart from infra/app.ts so that a test builds exactly what `cdk synth` builds.
 */
export function addStacks(app: App): { stack: PlantStoreStack; ciStack?: PlantStoreCiStack } {
  const config = readStageConfig((key) => app.node.tryGetContext(key));

  // Every physical name derives from the stack name: each stage is an independent copy.
  const stack = new PlantStoreStack(app, `PlantStore-${config.stage}`, {
    ...config,
    // The CLI names the region it will deploy to; the template stays region-agnostic.
    deployRegion: process.env.CDK_DEFAULT_REGION,
    description: `Plant Store API (${config.stage}): ${operations.map(routeKey).join(', ')} on API Gateway, Lambda and DynamoDB`,
  });
  Tags.of(stack).add('project', 'plant-store');
  Tags.of(stack).add('stage', config.stage);

  // The CI role, only when a repository is named: it is deployed once, by hand, not from CI.
  const ci = readCiConfig((key) => app.node.tryGetContext(key));
  if (ci === undefined) return { stack };
  const ciStack = new PlantStoreCiStack(app, 'PlantStore-ci', {
    ...ci,
    description: `Plant Store API CI: GitHub OIDC provider and deploy role for ${ci.repository}`,
  });
  Tags.of(ciStack).add('project', 'plant-store');
  return { stack, ciStack };
}
