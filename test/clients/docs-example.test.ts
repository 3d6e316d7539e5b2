import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import {
  createPlantStoreClient,
  listPlantPages,
  type PlantListItem,
} from '../../clients/plant-store-client.ts';
import { withBundledHandlers } from '../support/bundled-handlers.ts';
import { useTestApi } from '../support/local-api-fixture.ts';

const repository = fileURLToPath(new URL('../../', import.meta.url));
const page = await readFile(`${repository}docs/local-development.md`, 'utf8');
const section = page.split('\n## Call it from TypeScript\n')[1]?.split('\n## ')[0] ?? '';
const example = /```ts\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
/** Where the page tells a reader to save the example, relative to the repository. */
const savedAs = /Save it as `([^`]+)`/.exec(section)?.[1] ?? '';
const documentedUrl = 'http://127.0.0.1:3000';

/** A process's exit code and its stdout and stderr together. */
async function run(command: string, args: string[], env: Record<string, string> = {}) {
  const child = spawn(command, args, {
    cwd: repository,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk;
  });
  child.stderr.on('data', (chunk: Buffer) => {
    output += chunk;
  });
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  return { code, output };
}

/** Runs `use` on a file of its own in the folder the page names, written with `text`. */
async function inTryoutFolder<T>(text: string, use: (file: string) => Promise<T>): Promise<T> {
  const file = `${dirname(savedAs)}/docs-example-${randomUUID()}.ts`;
  await mkdir(`${repository}${dirname(file)}`, { recursive: true });
  await writeFile(`${repository}${file}`, text);
  try {
    return await use(file);
  } finally {
    await rm(`${repository}${file}`, { force: true });
  }
}

/**
 * The example, saved where the page says and pointed at `url`, run as the page says: a process of
 * the tests' Node 24. Once; a run that is about what the example does imports it here instead.
 */
function runExample(url: string, token: string) {
  return inTryoutFolder(example.replace(documentedUrl, url), (file) =>
    run(process.execPath, [file], { PLANTS_TOKEN: token }),
  );
}

/** The example, saved and pointed as `runExample` does, imported here with `PLANTS_TOKEN`. */
function importExample(url: string, token: string): Promise<unknown> {
  return inTryoutFolder(example.replace(documentedUrl, url), async (file) => {
    vi.stubEnv('PLANTS_TOKEN', token);
    try {
      return await import(pathToFileURL(`${repository}${file}`).href);
    } finally {
      vi.unstubAllEnvs();
    }
  });
}

describe('the client example of docs/local-development.md', () => {
  const local = useTestApi(withBundledHandlers);
  const existing = { id: 9223372036854775807n, name: 'Already here' };
  beforeAll(async () => {
    const client = createPlantStoreClient({ baseUrl: local.api.url, token: local.token });
    await client.POST('/plants', { body: existing });
  });

  async function storedPlants(): Promise<PlantListItem[]> {
    const client = createPlantStoreClient({ baseUrl: local.api.url, token: local.token });
    const plants: PlantListItem[] = [];
    for await (const items of listPlantPages(client)) plants.push(...items);
    return plants;
  }

  it('is found where the test looks for it', () => {
    expect(example).toContain(documentedUrl);
    expect(savedAs).toMatch(/^[\w-]+\/[\w-]+\.ts$/);
  });

  it('runs where the page says to save it, and leaves every plant but its own alone', async () => {
    const ran = await runExample(local.api.url, local.token);

    expect(ran).toMatchObject({ code: 0 });
    expect(await storedPlants()).toStrictEqual([existing]);
  });

  it('stops at the first answer that is not a success, naming its status', async () => {
    const ran = importExample(local.api.url, 'not-a-token');

    await expect(ran).rejects.toThrow('The Plant Store answered 401');
    expect(await storedPlants()).toStrictEqual([existing]);
  });

  it('is saved in a folder that Biome and tsc leave alone', async () => {
    const tsconfig = JSON.parse(await readFile(`${repository}tsconfig.json`, 'utf8')) as {
      include: string[];
    };

    const biome = await inTryoutFolder('const   unformatted =1\n', (file) =>
      run(`${repository}node_modules/.bin/biome`, ['check', '--no-errors-on-unmatched', file]),
    );

    expect(biome).toMatchObject({ code: 0 });
    expect(tsconfig.include.filter((folder) => savedAs.startsWith(`${folder}/`))).toStrictEqual([]);
  });
});
