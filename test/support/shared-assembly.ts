import { open, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { inject } from 'vitest';
import {
  type CloudAssembly,
  readCloudAssembly,
  synthesizeApp,
} from '../../bench/support/cloud-assembly.ts';

/** The stage's subscriber in the shared assembly: synth refuses a loopback one. */
export const sharedWebhookUrl = 'https://hooks.example.com/plant/webhook';

/**
 * The app as `npx cdk synth -c webhookUrl=…` writes it, bundled, every function's asset included:
 * synthesized once per run of Vitest, by the first test file that asks, and read only. A file
 * that needs other settings synthesizes its own (`synthesizeApp`).
 */
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
      context: { webhookUrl: sharedWebhookUrl },
      validate: false,
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
