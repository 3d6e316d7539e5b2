import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // One test file per core, not Vitest's default of one fewer (a single worker on a 2-core
    // machine): the main process only schedules, and many files spend their time waiting on
    // servers, child processes and timeouts rather than on the CPU.
    maxWorkers: availableParallelism(),
    // Tests start real dynalite servers and HTTP listeners on loopback; a 2-core CI machine needs headroom.
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
