import { mkdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A directory for this run of Vitest alone: what test files share, built once. */
    runDir: string;
  }
}

/** One directory per Vitest process, for every project of it; removed once all files have run. */
export default async function setup(project: TestProject) {
  const runDir = path.join(tmpdir(), `plant-store-tests-${process.pid}`);
  await mkdir(runDir, { recursive: true });
  project.provide('runDir', runDir);
  return () => rm(runDir, { recursive: true, force: true });
}
