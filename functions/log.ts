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

type SourceMap = import('node:module').SourceMap;

/**
 * Each bundle's source map, read when a stack first passes through it (null when it has none), with
 * the built-ins that read it: none of it is loaded by a request that logs no stack.
 */
const sourceMaps = new Map<string, SourceMap | null>();

function sourceMapOf(fileUrl: string): SourceMap | null {
  let map = sourceMaps.get(fileUrl);
  if (map === undefined) {
    try {
      const { SourceMap } = process.getBuiltinModule('node:module');
      const { readFileSync } = process.getBuiltinModule('node:fs');
      map = new SourceMap(JSON.parse(readFileSync(new URL(`${fileUrl}.map`), 'utf8')));
    } catch {
      map = null;
    }
    sourceMaps.set(fileUrl, map);
  }
  return map;
}

/**
 * An error's stack with each position in a bundle given as its TypeScript source's, read from the
 * source map beside the bundle (`infra/bundling/bundling.ts`). Node's `--enable-source-maps` would
 * map every stack, at the price of reading the map and measuring the bundle as it loads, on every
 * cold start, where no stack is logged
 * ([decision 0124](../docs/decisions/0124-stacks-mapped-when-logged.md)). A source is named as the
 * map names it, without its leading `../`: `functions/…` for an asset `cdk synth` wrote.
 */
export function sourceMappedStack(error: Error): string | undefined {
  return error.stack?.replace(
    /(file:\/\/[^\s()]+\.m?js):(\d+):(\d+)/g,
    (position, fileUrl: string, line: string, column: string) => {
      const entry = sourceMapOf(fileUrl)?.findEntry(Number(line) - 1, Number(column) - 1);
      if (entry === undefined || !('originalSource' in entry)) return position;
      const source = entry.originalSource.replace(/^(?:\.\.\/)+/, '');
      return `${source}:${entry.originalLine + 1}:${entry.originalColumn + 1}`;
    },
  );
}
