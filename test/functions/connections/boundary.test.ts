import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const functionsDir = path.resolve(import.meta.dirname, '..', '..', '..', 'functions');
const connectionsDir = path.join(functionsDir, 'connections');

type Import = { readonly from: string; readonly to: string; readonly typeOnly: boolean };

/** Every relative import of every module under functions/, resolved to a path under functions/. */
async function importsUnderFunctions(): Promise<Import[]> {
  const files = (await readdir(functionsDir, { recursive: true }))
    .filter((file) => file.endsWith('.ts'))
    .map((file) => path.join(functionsDir, file));
  const statement = /^\s*(?:import|export)\s+(type\s+)?(?:[^'";]*?\s+from\s+)?'(\.[^']+)'/gm;
  const imports: Import[] = [];
  for (const file of files) {
    const source = await readFile(file, 'utf8');
    for (const [, type, specifier] of source.matchAll(statement)) {
      const to = path.resolve(path.dirname(file), specifier as string);
      imports.push({ from: file, to, typeOnly: type !== undefined });
    }
  }
  return imports;
}

const inConnections = (file: string) => file.startsWith(`${connectionsDir}${path.sep}`);
const relative = (file: string) => path.relative(functionsDir, file);

describe('functions/connections/', () => {
  it("is used by the store adapter, the key set, the deliverer's receiver transport, the check plant's table fixture and the Lambda entry points that wire them, and nothing else", async () => {
    const imports = await importsUnderFunctions();

    const users = imports
      .filter((edge) => inConnections(edge.to) && !inConnections(edge.from) && !edge.typeOnly)
      .map((edge) => relative(edge.from));

    expect(users.length).toBeGreaterThan(0);
    for (const user of users) {
      expect(user).toMatch(
        /^(?:[\w-]+\/handler\.ts|lambda-handler\.ts|plants\/dynamodb-plant-store\.ts|auth\/remote-key-set\.ts|deliver-webhook\/receiver-send\.ts|pre-traffic-check\/table-fixture\.ts)$/,
      );
    }
  });

  it('imports nothing of the request path: only the configuration, beside its own modules', async () => {
    const imports = await importsUnderFunctions();

    const outside = imports
      .filter((edge) => inConnections(edge.from) && !inConnections(edge.to))
      .map((edge) => relative(edge.to));

    expect([...new Set(outside)]).toEqual(['config.ts']);
  });
});
