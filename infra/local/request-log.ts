/**
 * How the local server logs: `pretty` (the default) prints one line per request for a human,
 * merging in what the function's JSON access log says about it (outcome, why a token was refused);
 * `json` (PLANTS_LOG_FORMAT=json) also prints the function's lines as they are, the way CloudWatch
 * receives them on AWS, metrics included. The function itself always writes JSON.
 */
export type LogFormat = 'pretty' | 'json';
export const logFormats: readonly LogFormat[] = ['pretty', 'json'];

export interface CompletedRequest {
  readonly method: string;
  /** The request target as sent; only its path is logged (a query may carry `access_token=…`). */
  readonly url: string;
  readonly status: number;
  readonly ms: number;
  /** The gateway's request id, which the function logs as `apiRequestId`. */
  readonly requestId: string | undefined;
}

type Entry = Readonly<Record<string, unknown>>;

/** Access-log entries waiting for their request to finish; a bound, in case one never does. */
const maxPending = 1000;

export class RequestLog {
  readonly #write: (line: string) => void;
  readonly #format: LogFormat;
  readonly #pending = new Map<string, Entry>();

  constructor(write: (line: string) => void, format: LogFormat = 'pretty') {
    this.#write = write;
    this.#format = format;
  }

  /** What the function wrote to stdout: one JSON object per line. */
  functionOutput(text: string): void {
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue;
      const entry = parseObject(line);
      if (this.#format === 'json' || entry === undefined) {
        this.#write(line);
        continue;
      }
      if (entry.message === 'request' && typeof entry.apiRequestId === 'string') {
        // The function logs its access line before it returns, so it is here when the response is.
        if (this.#pending.size >= maxPending) this.#pending.clear();
        this.#pending.set(entry.apiRequestId, entry);
        continue;
      }
      this.#write(prettyEntry(entry));
    }
  }

  request(request: CompletedRequest): void {
    const entry =
      request.requestId === undefined ? undefined : this.#pending.get(request.requestId);
    if (request.requestId !== undefined) this.#pending.delete(request.requestId);
    const time = new Date().toTimeString().slice(0, 8);
    const outcome = typeof entry?.outcome === 'string' ? ` ${entry.outcome}` : '';
    const reason =
      typeof entry?.authFailureReason === 'string' ? ` (${entry.authFailureReason})` : '';
    const path = request.url.split('?')[0];
    this.#write(
      `${time} ${request.method} ${path} ${request.status} ${request.ms}ms${outcome}${reason}`,
    );
  }
}

/** e.g. `  warn  dependency unavailable requestId=… status=503 error=["…"]` */
function prettyEntry(entry: Entry): string {
  const { level, message, timestamp: _timestamp, ...fields } = entry;
  const details = Object.entries(fields)
    .filter(([name, value]) => value !== undefined && !name.startsWith('_'))
    .map(([name, value]) => `${name}=${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join(' ');
  return `  ${String(level ?? 'log').padEnd(5)} ${String(message ?? '')} ${details}`.trimEnd();
}

function parseObject(line: string): Entry | undefined {
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Entry)
      : undefined;
  } catch {
    return undefined;
  }
}
