import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { staticDocsPage } from '../../dev-server/api-docs.ts';
import type { LocalApi } from '../../dev-server/local-api.ts';
import { withBundledHandlers } from '../support/bundled-handlers.ts';
import { clientCredentialsToken, createPlant, startTestApi } from '../support/local-api-fixture.ts';
import { launchChromium } from './browser.ts';

/** docs/local-development.md shows this; `UPDATE_SCREENSHOT=1` rewrites it, else CI keeps it. */
const committedScreenshot = fileURLToPath(new URL('../../docs/api-docs.png', import.meta.url));
/** Generous: a 2-core CI machine parses the renderer and runs the API at the same time. */
const renderTimeoutMs = 20_000;
const screenshotArea = { x: 0, y: 0, width: 1280, height: 1400 };

/** Every URL the page asks for, so a test can prove that none leaves the machine. */
function recordRequests(page: Page): string[] {
  const urls: string[] = [];
  page.on('request', (request) => urls.push(request.url()));
  return urls;
}

function recordPageErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  // A Content-Security-Policy violation shows up only as a console error.
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  return errors;
}

/** The schemas `openapi.yaml` declares, in its order: the page shows each of them. */
async function declaredSchemas(): Promise<string[]> {
  const spec = parse(await readFile(new URL('../../openapi.yaml', import.meta.url), 'utf8')) as {
    components: { schemas: Record<string, unknown> };
  };
  return Object.keys(spec.components.schemas);
}

/** The names in the Schemas section, top level only (OpenAPI 3.1 renders JSON Schema 2020-12). */
function schemaNames(page: Page): Promise<string[]> {
  return page
    .locator(
      'section.models article[data-json-schema-level="0"] > .json-schema-2020-12-head .json-schema-2020-12__title',
    )
    .allTextContents();
}

describe('API reference in a browser (GET /docs and npm run docs)', () => {
  let browser: Browser;
  let api: LocalApi;
  let workDir: string;

  beforeAll(async () => {
    [browser, api, workDir] = await Promise.all([
      launchChromium(),
      withBundledHandlers().then(startTestApi),
      mkdtemp(join(tmpdir(), 'plants-docs-')),
    ]);
  });

  afterAll(async () => {
    await Promise.all([browser?.close(), api?.close()]);
    if (workDir) await rm(workDir, { recursive: true, force: true });
  });

  /** A page in a context of its own, which the caller closes. */
  async function openPage(): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    page.setDefaultTimeout(renderTimeoutMs);
    return { context, page };
  }

  // One page for both: each "Try it out" runs on the page as a reader would leave it, and the
  // renderer is parsed once.
  describe('GET /docs', () => {
    let context: BrowserContext;
    let page: Page;
    let requests: string[];
    let errors: string[];

    beforeAll(async () => {
      ({ context, page } = await openPage());
      requests = recordRequests(page);
      errors = recordPageErrors(page);
      await page.goto(`${api.url}/docs`);
    });

    afterAll(async () => {
      await context?.close();
    });

    it('renders POST /plants with its schemas, and "Try it out" creates a plant with the dev token', async () => {
      const operation = page.locator('#operations-plants-createPlant');
      await operation.locator('.opblock-summary').click();
      await operation.getByRole('button', { name: 'Execute' }).waitFor();
      // The top of the page with the operation open: what a reader of the docs page should see.
      const screenshot =
        process.env.UPDATE_SCREENSHOT === '1' ? committedScreenshot : join(workDir, 'api-docs.png');
      await page.screenshot({ path: screenshot, fullPage: true, clip: screenshotArea });
      await operation.getByRole('button', { name: 'Execute' }).click();
      const liveResponse = operation.locator('.live-responses-table .response');
      await liveResponse.waitFor();

      await expect
        .poll(() => operation.locator('.opblock-summary-method').textContent())
        .toBe('POST');
      expect(await operation.locator('.opblock-summary-path').textContent()).toBe('/plants');
      const declared = await declaredSchemas();
      expect(declared).toEqual(expect.arrayContaining(['Plant', 'NewPlant', 'Error']));
      expect(await schemaNames(page)).toEqual(declared);
      expect(await liveResponse.locator('.response-col_status').textContent()).toContain('200');
      expect(await liveResponse.locator('.response-col_description').textContent()).toContain(
        '"Fern"',
      );
      expect(requests.length).toBeGreaterThan(0);
      expect(requests.filter((url) => !url.startsWith(`${api.url}/`))).toEqual([]);
      expect(errors).toEqual([]);
      expect((await stat(screenshot)).size).toBeGreaterThan(10_000);
    });

    it('"Try it out" lists the plants and deletes one with the same development token', async () => {
      const created = await createPlant(
        api,
        await clientCredentialsToken(api),
        '{"id":7,"name":"Ivy"}',
      );
      expect(created.status).toBe(200);

      const list = page.locator('#operations-plants-listPlants');
      await list.locator('.opblock-summary').click();
      await list.getByRole('button', { name: 'Execute' }).click();
      const listed = list.locator('.live-responses-table .response');
      await listed.waitFor();
      const remove = page.locator('#operations-plants-deletePlant');
      await remove.locator('.opblock-summary').click();
      await remove.locator('tr[data-param-name="id"] input').fill('7');
      await remove.getByRole('button', { name: 'Execute' }).click();
      const deleted = remove.locator('.live-responses-table .response');
      await deleted.waitFor();

      expect(await listed.locator('.response-col_status').textContent()).toContain('200');
      expect(await listed.locator('.response-col_description').textContent()).toContain('"Ivy"');
      expect(await deleted.locator('.response-col_status').textContent()).toContain('204');
      const again = await createPlant(
        api,
        await clientCredentialsToken(api),
        '{"id":7,"name":"Oak"}',
      );
      expect(again.status).toBe(200);
      expect(requests.filter((url) => !url.startsWith(`${api.url}/`))).toEqual([]);
      expect(errors).toEqual([]);
    });
  });

  it('builds one self-contained page that renders from file:// with no request for anything else', async ({
    onTestFinished,
  }) => {
    const { context, page } = await openPage();
    onTestFinished(() => context.close());
    const file = join(workDir, 'index.html');
    await writeFile(file, await staticDocsPage());
    const url = pathToFileURL(file).href;
    const requests = recordRequests(page);
    const errors = recordPageErrors(page);

    await page.goto(url);
    const operation = page.locator('#operations-plants-createPlant');
    await operation.waitFor();

    expect(await operation.locator('.opblock-summary-path').textContent()).toBe('/plants');
    expect(await schemaNames(page)).toEqual(await declaredSchemas());
    expect(
      requests.filter((requested) => requested !== url && !requested.startsWith('data:')),
    ).toEqual([]);
    expect(errors).toEqual([]);
  });
});
