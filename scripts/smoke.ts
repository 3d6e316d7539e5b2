// `npm run smoke`: every operation against a running API (docs/deploy.md); its plants are tagged
// and deleted (docs/decisions/0146-check-plants-not-delivered.md).
import { parseArgs } from 'node:util';
import { createPlantStoreClient, listPlantPages } from '../clients/plant-store-client.ts';
import { checkPlant } from '../functions/checks/check.ts';
import { finallyAlways, freshPlantId, runChecks, type Send } from '../functions/checks/runner.ts';
import { checksOf, operations, routeKey } from '../functions/operations.ts';
import {
  apiFixture,
  describeError,
  exitOnUsage,
  sampleHttpRequest,
  sendHttp,
} from './check-http.ts';

const usage =
  'Usage: npm run smoke -- --url <api base url> --token <bearer token> [--timeout <ms>]\n' +
  '  e.g. npm run smoke -- --url http://127.0.0.1:3000 --token "$(npm run -s token)"';

export interface SmokeOptions {
  readonly url: string;
  readonly token: string;
  readonly timeoutMs: number;
}

/** The command once its options are read: each step printed as it ends, and the exit code. */
export async function smoke(
  { url, token, timeoutMs }: SmokeOptions,
  log: (line: string) => void = console.log,
): Promise<number> {
  const baseUrl = new URL(url).href.replace(/\/+$/, '');
  const send: Send = (request) => sendHttp(baseUrl, request, timeoutMs);
  const fixture = apiFixture(send, token);

  let passed = 0;
  let failed = 0;
  function print(name: string, problem: string | undefined, detail: string): void {
    if (problem === undefined) passed += 1;
    else failed += 1;
    log(problem === undefined ? `PASS ${name}: ${detail}` : `FAIL ${name}: ${problem}`);
  }

  async function step(name: string, id: string, run: () => Promise<string>): Promise<void> {
    try {
      print(name, undefined, await finallyAlways(run, () => fixture.delete(id)));
    } catch (error) {
      print(name, describeError(error), '');
    }
  }

  log(`Smoke test of ${baseUrl}: ${operations.map(routeKey).join(', ')}`);
  for (const operation of operations) {
    const route = routeKey(operation);
    const checks = checksOf(operation);
    const report = await runChecks(operation, checks, { send, fixture, id: freshPlantId(), token });
    for (const { name, status, problems } of report.results) {
      print(
        `${route}: ${name}`,
        problems.length === 0 ? undefined : problems.join('; '),
        `${status}`,
      );
    }
    if ('error' in report) print(`${route}: its checks`, describeError(report.error), '');
    const id = freshPlantId();
    await step(`${route}'s sample, about an id no plant has`, id, async () => {
      const answer = await sendHttp(baseUrl, sampleHttpRequest(operation, id, token), timeoutMs);
      if (answer.status !== checks.sample.status) {
        throw new Error(`expected ${checks.sample.status}, got ${answer.status} ${answer.body}`);
      }
      return `${answer.status} ${answer.body}`.trimEnd();
    });
  }

  const listed = freshPlantId();
  await step('the typed client lists the check plant with its exact id', listed, async () => {
    await fixture.create(listed);
    const api = createPlantStoreClient({ baseUrl, token });
    let pages = 0;
    const signal = AbortSignal.timeout(timeoutMs * 10);
    for await (const page of listPlantPages(api, { limit: 100, signal })) {
      pages += 1;
      const found = page.find((item) => String(item.id) === listed);
      if (found === undefined) continue;
      if (found.name !== checkPlant.name) throw new Error(`listed as ${JSON.stringify(found)}`);
      return `${listed} on page ${pages}`;
    }
    throw new Error(`${listed} is on none of ${pages} pages`);
  });

  log(failed === 0 ? 'PASS all steps' : `FAIL ${failed} of ${passed + failed} steps`);
  return failed === 0 ? 0 : 1;
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: {
      url: { type: 'string' },
      token: { type: 'string' },
      timeout: { type: 'string', default: '10000' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const timeoutMs = Number(values.timeout);
  const { url = '', token = '' } = values;
  exitOnUsage(usage, values.help, URL.canParse(url) && token !== '' && timeoutMs > 0);
  process.exitCode = await smoke({ url, token: token.trim(), timeoutMs });
}
