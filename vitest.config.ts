import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const include = ['test/**/*.test.ts'];

/**
 * The test files that replace a module (`vi.mock`): they need a module graph of their own. Every
 * other file shares its worker's modules with the files that ran there before it, which saves
 * importing the AWS SDK, the CDK and the handlers' modules again for each file
 * (docs/decisions/0131-test-files-share-modules.md).
 */
const mocking = readdirSync('test', { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.test.ts'))
  .map((file) => `test/${file}`)
  .filter((file) => /\bvi\.(?:mock|doMock|resetModules)\(/.test(readFileSync(file, 'utf8')));

/**
 * The files that take longest, started first: Vitest orders a clean clone's files by size, having
 * no durations yet, and a long file started last ends the run alone. The order only; a file not
 * named here runs after these, in Vitest's own order.
 */
const longestFirst = [
  'test/dev-server/webhook/slow-receiver.test.ts',
  'test/bench/bench.test.ts',
  'test/hardening/failing-store.test.ts',
  'test/hardening/bad-input.property.test.ts',
  'test/hardening/model.property.test.ts',
  'test/functions/pre-traffic-check/handler.test.ts',
];

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (spec: TestSpecification) => {
      const index = longestFirst.findIndex((file) => spec.moduleId.endsWith(file));
      return index === -1 ? longestFirst.length : index;
    };
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}

export default defineConfig({
  test: {
    // One test file more than there are cores, not Vitest's default of one fewer (a single worker
    // on a 2-core machine): many files spend much of their time waiting on servers, child
    // processes and timeouts, and the extra file uses the core they leave idle. See
    // docs/decisions/0071-test-files-in-parallel.md.
    maxWorkers: availableParallelism() + 1,
    // Tests start real dynalite servers, HTTP listeners and processes on loopback, and the property
    // tests run hundreds of cases against them: a busy 2-core machine needs headroom.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    sequence: { sequencer: LongestFirst },
    globalSetup: ['test/support/global-setup.ts'],
    projects: [
      { extends: true, test: { name: 'shared', include, exclude: mocking, isolate: false } },
      { extends: true, test: { name: 'isolated', include: mocking, isolate: true } },
    ],
  },
});
