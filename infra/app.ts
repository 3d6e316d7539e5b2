import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { addStacks } from './plant-store-app.ts';
import { checkContextKeys, StageConfigError, stageContextKeys } from './stage-config.ts';

/** The keys infra/ci-config.ts reads, for the CI stack. */
const ciContextKeys = [
  'githubRepo',
  'githubEnvironments',
  'githubOidcProviderArn',
  'githubSubjectPrefix',
];

// Synthesized below, and only once every stack is built: a refused setting leaves no half-built
// app for the exit to synthesize (and bundle).
const app = new App({ autoSynth: false });
if (built(app)) {
  // The same checks the tests assert: a deploy is refused for what CI would refuse.
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  // When the CLI (or a test standing in for it) asks, as the App's own synth at exit would.
  if (process.env.CDK_OUTDIR !== undefined) app.synth();
}

/**
 * Checks the context's keys, then adds the stacks; a refused key or setting is printed alone and
 * fails the run: a stack trace would bury the message, which names the key and what to change.
 */
function built(app: App): boolean {
  try {
    checkContextKeys(Object.keys(app.node.getAllContext()), [
      ...stageContextKeys,
      ...ciContextKeys,
    ]);
    addStacks(app);
    return true;
  } catch (error) {
    if (!(error instanceof StageConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exitCode = 1;
    return false;
  }
}
