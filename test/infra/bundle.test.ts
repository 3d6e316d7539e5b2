import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { isBuiltin } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { build, type Metafile } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleFileName, esbuildBuildOptions } from '../../infra/bundling.ts';
import { type DynaliteServer, startDynalite } from '../support/dynalite-server.ts';
import { fakeEvent } from '../support/fake-event.ts';
import { startTestIssuer, type TestIssuer } from '../support/test-issuer.ts';

/**
 * Loads the bundle with Node's own ESM loader, in a worker thread whose environment is only what
 * Lambda would set, and invokes `handler` once per event. Importing it from the test itself would
 * go through Vitest's transform and could hide a format mistake.
 */
const runner = `
import { parentPort, workerData } from 'node:worker_threads';
const { handler } = await import(workerData.bundleUrl);
const results = [];
for (const event of workerData.events) {
  results.push(await handler(event, { awsRequestId: 'bundle-test', functionName: 'create-plant' }));
}
parentPort.postMessage(results);
`;

let outdir: string;
let metafile: Metafile;
let dynamodb: DynaliteServer;
let issuer: TestIssuer;
let tableName: string;

beforeAll(async () => {
  outdir = await mkdtemp(path.join(tmpdir(), 'create-plant-bundle-'));
  ({ metafile } = await build({
    ...esbuildBuildOptions,
    outdir,
    metafile: true,
    logLevel: 'silent',
  }));
  [dynamodb, issuer] = await Promise.all([startDynalite(), startTestIssuer()]);
  tableName = dynamodb.tableName;
});

afterAll(async () => {
  await Promise.all([dynamodb?.close(), issuer?.close()]);
  if (outdir) await rm(outdir, { recursive: true, force: true });
});

function invokeBundle(
  events: readonly APIGatewayProxyEventV2[],
): Promise<APIGatewayProxyStructuredResultV2[]> {
  const worker = new Worker(runner, {
    eval: true,
    workerData: {
      bundleUrl: pathToFileURL(path.join(outdir, bundleFileName)).href,
      events,
    },
    env: {
      PLANTS_TABLE_NAME: tableName,
      AWS_ENDPOINT_URL_DYNAMODB: dynamodb.endpoint,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'bundle-test',
      AWS_SECRET_ACCESS_KEY: 'bundle-test',
      AUTH_ISSUER: issuer.issuer,
      AUTH_AUDIENCE: 'test-client',
    },
  });
  return new Promise<APIGatewayProxyStructuredResultV2[]>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`bundle worker exited with ${code}`)));
  }).finally(() => worker.terminate());
}

describe('create-plant bundle', () => {
  it('is self-contained: only Node built-ins are left for the runtime to provide', () => {
    const [output] = Object.entries(metafile.outputs).filter(([file]) => file.endsWith('.mjs'));
    expect(output).toBeDefined();
    const leftToImport = output?.[1].imports.map((entry) => entry.path) ?? [];
    expect(leftToImport.filter((specifier) => !isBuiltin(specifier))).toEqual([]);
  });

  it('contains no AWS SDK: the handler signs its own two DynamoDB calls', () => {
    const inputs = Object.keys(metafile.inputs);
    expect(inputs.filter((input) => /@aws-sdk|@smithy|@aws-lite/.test(input))).toEqual([]);
    expect(inputs).toEqual(
      expect.arrayContaining([expect.stringMatching(/functions\/create-plant\/handler\.ts$/)]),
    );
  });

  it('links a source map that leads stack traces back to the TypeScript sources', async () => {
    const code = await readFile(path.join(outdir, bundleFileName), 'utf8');
    expect(code.trimEnd().endsWith(`//# sourceMappingURL=${bundleFileName}.map`)).toBe(true);
    const map = JSON.parse(await readFile(path.join(outdir, `${bundleFileName}.map`), 'utf8')) as {
      sources: string[];
      sourcesContent?: unknown;
    };
    expect(map.sources).toEqual(
      expect.arrayContaining([expect.stringMatching(/functions\/create-plant\/handler\.ts$/)]),
    );
    expect(map.sourcesContent).toBeUndefined();
  });

  it('creates a plant when invoked with a valid token, and answers 401 without one', async () => {
    const body = JSON.stringify({ id: 1, name: 'Fern' });
    const [created, unauthorized] = await invokeBundle([
      fakeEvent({ token: await issuer.mint(), body }),
      fakeEvent({ body }),
    ]);

    expect(created).toMatchObject({ statusCode: 200 });
    expect(JSON.parse(created?.body ?? '')).toEqual({ name: 'Fern' });
    expect(await dynamodb.getItem(tableName, '1')).toMatchObject({ name: { S: 'Fern' } });

    expect(unauthorized).toMatchObject({ statusCode: 401 });
    expect(JSON.parse(unauthorized?.body ?? '')).toMatchObject({ error: 401 });
  });
});
