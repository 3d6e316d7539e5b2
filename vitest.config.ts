import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Tests start real dynalite servers and HTTP listeners on loopback; a 2-core CI machine needs headroom.
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
