import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

/** Debian's Chromium, which `.ci/run` installs; CHROMIUM_PATH points elsewhere (e.g. Chrome on a Mac). */
export const chromiumPath = process.env.CHROMIUM_PATH?.trim() || '/usr/bin/chromium';

/**
 * Headless Chromium for the browser tests. A missing browser fails the run with what to do, in CI
 * and on a laptop alike: a browser test that skips itself would pass without testing anything.
 */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(chromiumPath)) {
    throw new Error(
      `No Chromium at ${chromiumPath}. Install it (Debian/Ubuntu: ` +
        '`sudo apt-get install -y --no-install-recommends chromium`), or set CHROMIUM_PATH to a ' +
        "Chromium or Chrome binary, or leave the browser tests out: npx vitest run --exclude 'test/e2e/**'",
    );
  }
  return chromium.launch({
    executablePath: chromiumPath,
    // No sandbox: CI runs as root, where Chromium's sandbox cannot start. No background networking,
    // component updates or sync, so that the only requests are the ones the page makes.
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
