import { open, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { inject } from 'vitest';
import {
  type CloudAssembly,
  readCloudAssembly,
  synthesizeApp,
} from '../../bench/support/cloud-assembly.ts';

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

/**
 * The app as `npx cdk synth` writes it with `sharedContext`: bundled, validated, every asset and
 * optional resource included. Synthesized once per run of Vitest, by the first test file that
 * asks, and read only. A file that needs other settings synthesizes its own (`synthesizeApp`).
 */
/** A hook that waits for it allows this long: a validated, bundled synth on a busy machine. */
export const sharedAssemblyTimeoutMs = 180_000;

export async function sharedAssembly(): Promise<CloudAssembly> {
  const runDir = inject('runDir');
  const outdir = path.join(runDir, 'cdk.out');
  const done = path.join(runDir, 'cdk.out.done');
  const claimed = await open(path.join(runDir, 'cdk.out.lock'), 'wx').then(
    (handle) => handle.close().then(() => true),
    () => false,
  );
  if (claimed) {
    const result = await synthesizeApp({
      context: sharedContext,
      outdir,
    }).then(
      () => '',
      (error: unknown) => String(error),
    );
    await writeFile(`${done}.tmp`, result);
    await rename(`${done}.tmp`, done);
  }
  for (;;) {
    const failure = await readFile(done, 'utf8').catch(() => undefined);
    if (failure === '') return readCloudAssembly(outdir);
    if (failure !== undefined) throw new Error(`the shared synth failed: ${failure}`);
    await delay(200);
  }
}
