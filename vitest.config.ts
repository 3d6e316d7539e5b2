import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // One test file more than there are cores, not Vitest's default of one fewer (a single worker
    // on a 2-core machine): many files spend much of their time waiting on servers, child
    // processes and timeouts, and the extra file uses the core they leave idle. See
    // docs/decisions/0071-test-files-in-parallel.md.
    maxWorkers: availableParallelism() + 1,
    // Tests start real dynalite servers, HTTP listeners and processes on loopback, and the property
    // tests run hundreds of cases against them: a busy 2-core machine needs headroom.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
