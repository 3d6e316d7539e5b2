// `npm run -s token`: prints one bearer token for the local API on stdout, and nothing else, so that
// `-H "Authorization: Bearer $(npm run -s token)"` works. Problems go to stderr with exit code 1.
import { loadLocalConfig } from './config.ts';
import { localToken } from './local-token.ts';

try {
  process.stdout.write(`${await localToken(loadLocalConfig())}\n`);
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
}
