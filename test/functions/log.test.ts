import { afterEach, describe, expect, it, vi } from 'vitest';
import { jsonLogger } from '../../functions/log.ts';

/** What jsonLogger writes to stdout for one call, parsed, with _X_AMZN_TRACE_ID set to `traceId`. */
function written(traceId: string | undefined): unknown[] {
  const chunks: string[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    chunks.push(String(chunk));
    return true;
  });
  vi.stubEnv('_X_AMZN_TRACE_ID', traceId);
  jsonLogger('warn', 'dependency unavailable', { status: 503 });
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
  expect(chunks.join('')).toMatch(/^[^\n]*\n$/);
  return chunks
    .join('')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
}

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
});

describe('jsonLogger', () => {
  it('writes one JSON line: timestamp, level, message and the fields', () => {
    const lines = written(undefined);

    expect(lines).toStrictEqual([
      {
        timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        level: 'warn',
        message: 'dependency unavailable',
        status: 503,
      },
    ]);
  });

  it("adds Lambda's X-Ray trace id when there is one", () => {
    const lines = written('Root=1-67891233-abcdef012345678912345678');

    expect(lines[0]).toMatchObject({ traceId: 'Root=1-67891233-abcdef012345678912345678' });
  });
});
