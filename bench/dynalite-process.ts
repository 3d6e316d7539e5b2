import { startDynalite } from '../test/support/dynalite-server.ts';

/**
 * The store for warm runs, in a process of its own so that its CPU never shows up in a measured
 * handler's figures. Prints `{"endpoint", "tableName"}` as one line, then serves until stdin closes.
 */
const server = await startDynalite();
process.stdout.write(
  `${JSON.stringify({ endpoint: server.endpoint, tableName: server.tableName })}\n`,
);

const stop = () => {
  server.close().finally(() => process.exit(0));
};
process.stdin.on('end', stop);
process.stdin.on('close', stop);
process.stdin.resume();
process.on('SIGTERM', stop);
