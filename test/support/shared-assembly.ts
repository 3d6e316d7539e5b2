import {
  type CloudAssembly,
  readCloudAssembly,
  synthesizeApp,
} from '../../bench/support/cloud-assembly.ts';
import { oncePerRun } from './once-per-run.ts';

/**
 * `-c` settings that turn on every optional resource of both stacks. The subscriber is not a
 * loopback one, which synth refuses; tests that deliver put theirs in its place.
 */
export const sharedContext = {
  githubRepo: 'example-org/plant-store',
  githubSubjectPrefix: 'repo:example-org@1234/plant-store@5678',
  domainName: 'plants.example.com',
  certificateArn:
    'arn:aws:acm:eu-west-1:123456789012:certificate/0e9a8b7c-6d5e-4f3a-9b2c-1d0e9f8a7b6c',
  alarmEmail: 'oncall@example.com',
  webhookUrl: 'https://hooks.example.com/plant/webhook',
  ciRoleArn: 'arn:aws:iam::123456789012:role/PlantStore-ci-deploy',
};

/** A hook that waits for it allows this long: a validated, bundled synth on a busy machine. */
export const sharedAssemblyTimeoutMs = 180_000;

/**
 * The app as `npx cdk synth` writes it with `sharedContext`: bundled, validated, every asset and
 * optional resource included. Synthesized once per run of Vitest, by the first test file that
 * asks, and read only. A file that needs other settings synthesizes its own (`synthesizeApp`).
 */
export async function sharedAssembly(): Promise<CloudAssembly> {
  const outdir = await oncePerRun('cdk.out', (outdir) =>
    synthesizeApp({ context: sharedContext, outdir }),
  );
  return readCloudAssembly(outdir);
}
