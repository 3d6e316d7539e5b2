import { describe, expect, it } from 'vitest';
import { RequestLog } from '../../../infra/local/request-log.ts';

const accessLine = JSON.stringify({
  timestamp: '2026-01-01T00:00:00.000Z',
  level: 'info',
  message: 'request',
  apiRequestId: 'req-1',
  status: 401,
  outcome: 'unauthorized',
  authFailureReason: 'expired',
  _aws: { CloudWatchMetrics: [] },
});

function collect(): { lines: string[]; write: (line: string) => void } {
  const lines: string[] = [];
  return { lines, write: (line) => lines.push(line) };
}

describe('RequestLog', () => {
  it('prints one human line per request, with the outcome from the function access log', () => {
    // Prepare
    const { lines, write } = collect();
    const log = new RequestLog(write);

    // Act
    log.functionOutput(`${accessLine}\n`);
    log.request({ method: 'POST', url: '/plants', status: 401, ms: 4, requestId: 'req-1' });

    // Assess
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^\d\d:\d\d:\d\d POST \/plants 401 4ms unauthorized \(expired\)$/);
  });

  it('prints a request the function never saw (a gateway 404) from the gateway alone', () => {
    // Prepare
    const { lines, write } = collect();

    // Act
    new RequestLog(write).request({ method: 'GET', url: '/', status: 404, ms: 0, requestId: 'x' });

    // Assess
    expect(lines).toEqual([expect.stringMatching(/ GET \/ 404 0ms$/)]);
  });

  it('logs the path without the query string, which may carry a token', () => {
    // Prepare
    const { lines, write } = collect();
    const url = '/plants?access_token=eyJ.secret.sig&x=1';

    // Act
    new RequestLog(write).request({ method: 'POST', url, status: 401, ms: 3, requestId: 'x' });

    // Assess
    expect(lines).toEqual([expect.stringMatching(/ POST \/plants 401 3ms$/)]);
    expect(lines[0]).not.toContain('secret');
  });

  it('turns the function warnings and errors into key=value lines, without the metrics', () => {
    // Prepare
    const { lines, write } = collect();
    const warning = {
      level: 'warn',
      message: 'dependency unavailable',
      dependency: 'store',
      _aws: {},
    };

    // Act
    new RequestLog(write).functionOutput(`${JSON.stringify(warning)}\nnot json\n`);

    // Assess
    expect(lines).toEqual(['  warn  dependency unavailable dependency=store', 'not json']);
  });

  it('in json format passes the function lines through as they are, as CloudWatch gets them', () => {
    // Prepare
    const { lines, write } = collect();
    const log = new RequestLog(write, 'json');

    // Act
    log.functionOutput(`${accessLine}\n`);
    log.request({ method: 'POST', url: '/plants', status: 401, ms: 4, requestId: 'req-1' });

    // Assess
    expect(lines[0]).toBe(accessLine);
    expect(lines[1]).toMatch(/ POST \/plants 401 4ms$/);
  });
});
