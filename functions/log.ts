export type LogLevel = 'info' | 'warn' | 'error';
export type LogFields = Readonly<Record<string, unknown>>;
export type Logger = (level: LogLevel, message: string, fields: LogFields) => void;

/**
 * One JSON object per line on stdout. Written past `console` so that Lambda's JSON log format
 * keeps our fields as fields; the X-Ray trace id ties a line to the API's access log and trace.
 */
export const jsonLogger: Logger = (level, message, fields) => {
  const traceId = process.env._X_AMZN_TRACE_ID;
  const entry = { timestamp: new Date().toISOString(), level, message, ...fields };
  process.stdout.write(`${JSON.stringify(traceId ? { ...entry, traceId } : entry)}\n`);
};

/** Names and messages down the cause chain: enough to diagnose, never a request's data. */
export function errorChain(error: unknown): string[] {
  const links: string[] = [];
  for (let link = error; link !== undefined && links.length < 5; ) {
    if (link instanceof Error) {
      links.push(`${link.name}: ${link.message}`);
      link = link.cause;
    } else {
      links.push(String(link));
      link = undefined;
    }
  }
  return links;
}
