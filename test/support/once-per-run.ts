import { open, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { inject } from 'vitest';

/**
 * `make` for `name` in this run of Vitest's directory (`runDir`), by the first test file of the
 * run that asks; the others wait for it. Returns the path `make` was given.
 */
export async function oncePerRun(
  name: string,
  make: (target: string) => Promise<unknown>,
): Promise<string> {
  const target = path.join(inject('runDir'), name);
  const done = `${target}.done`;
  const claimed = await open(`${target}.lock`, 'wx').then(
    (handle) => handle.close().then(() => true),
    () => false,
  );
  if (claimed) {
    const failure = await make(target).then(
      () => '',
      (error: unknown) => String(error),
    );
    await writeFile(`${done}.tmp`, failure);
    await rename(`${done}.tmp`, done);
  }
  for (;;) {
    const failure = await readFile(done, 'utf8').catch(() => undefined);
    if (failure === '') return target;
    if (failure !== undefined) throw new Error(`${name} failed: ${failure}`);
    await delay(100);
  }
}
