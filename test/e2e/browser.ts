import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rename, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { arch, platform } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { type Browser, chromium } from 'playwright-core';

const run = promisify(execFile);

/** Chrome and Chromium where their installers put them, for machines the npm Chromium does not run on. */
const installedBrowsers: Readonly<Partial<Record<NodeJS.Platform, readonly string[]>>> = {
  darwin: [
    '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
    '/Applications/Chromium.app/Contents/MacOS/Chromium',
  ],
  linux: ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'],
};

/**
 * The browser the tests drive, first found of: `CHROMIUM_PATH`; on Linux x64 the Chromium that
 * `@sparticuz/chromium` ships inside its npm package, so that `npm ci` alone brings it and every
 * machine runs the version the lockfile pins; a Chrome or Chromium installed on the system.
 */
export async function chromiumPath(): Promise<string> {
  const configured = process.env.CHROMIUM_PATH?.trim();
  if (configured) {
    if (!existsSync(configured)) throw new Error(`CHROMIUM_PATH is ${configured}: no such file.`);
    return configured;
  }
  if (platform() === 'linux' && arch() === 'x64') return unpackedNpmChromium();
  const found = (installedBrowsers[platform()] ?? [])
    .map(onPath)
    .find((path) => path !== undefined);
  if (found) return found;
  throw new Error(
    `No Chromium for ${platform()} ${arch()}: the one from npm runs on Linux x64 only. ` +
      'Install Chrome or Chromium, or set CHROMIUM_PATH to its binary, or leave the browser tests ' +
      "out: npx vitest run --exclude 'test/e2e/**'",
  );
}

function onPath(name: string): string | undefined {
  if (name.includes('/')) return existsSync(name) ? name : undefined;
  return (process.env.PATH ?? '')
    .split(delimiter)
    .map((dir) => join(dir, name))
    .find((path) => existsSync(path));
}

/**
 * `@sparticuz/chromium` ships Chromium brotli-compressed and unpacks it into the OS temporary
 * directory, where it reuses whatever `chromium` it finds, whichever version and however complete.
 * So it unpacks here in a child process whose TMPDIR is a fresh directory, which then moves into
 * place in one rename: runs in parallel (other checkouts, other agents) never see half a binary,
 * and a new package version gets a directory of its own. `npm ci` clears the cache with the rest
 * of node_modules.
 */
async function unpackedNpmChromium(): Promise<string> {
  const entry = createRequire(import.meta.url).resolve('@sparticuz/chromium');
  const { version } = JSON.parse(
    await readFile(join(dirname(entry), '..', 'package.json'), 'utf8'),
  ) as { version: string };
  const cache = fileURLToPath(new URL('../../node_modules/.cache/', import.meta.url));
  const unpacked = join(cache, `sparticuz-chromium-${version}`);
  if (!existsSync(unpacked)) {
    await mkdir(cache, { recursive: true });
    const staging = await mkdtemp(join(cache, '.sparticuz-chromium-'));
    try {
      const unpack = `const { default: c } = await import(${JSON.stringify(pathToFileURL(entry).href)});
        await c.executablePath();`;
      await run(process.execPath, ['--input-type=module', '--eval', unpack], {
        env: { ...process.env, TMPDIR: staging },
      });
      await rename(staging, unpacked).catch((error: NodeJS.ErrnoException) => {
        // Another run got there first with the same version: use its copy.
        if (error.code !== 'ENOTEMPTY' && error.code !== 'EEXIST') throw error;
      });
    } finally {
      await rm(staging, { recursive: true, force: true });
    }
  }
  return join(unpacked, 'chromium');
}

/**
 * Headless Chromium for the browser tests. A missing browser fails the run with what to do, in CI
 * and on a laptop alike: a browser test that skips itself would pass without testing anything.
 *
 * The flags are ours, not `@sparticuz/chromium`'s serverless set: that one turns off web security
 * and site isolation, and the tests check what the page's Content-Security-Policy lets through.
 */
export async function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: await chromiumPath(),
    // No sandbox: CI runs as root, where Chromium's sandbox cannot start. No background networking,
    // component updates or sync: the machines have no internet, and the only requests are the
    // ones the page makes.
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
