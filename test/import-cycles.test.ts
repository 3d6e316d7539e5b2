import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '..');
const trees = ['functions', 'infra', 'dev-server', 'bench', 'scripts', 'clients'];

type Graph = ReadonlyMap<string, readonly string[]>;

/** Static, type-only, side-effect, re-export and literal dynamic imports of a relative `.ts` path. */
const relativeImport = /(?:\bfrom\s+|\bimport\s+|\bimport\(\s*)['"](\.{1,2}\/[^'"]+\.ts)['"]/g;

/** Each `.ts` file under the trees -> the files it imports, as paths from the repository root. */
function fileGraph(): Graph {
  const files = trees.flatMap((tree) =>
    readdirSync(path.join(root, tree), { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts') && !file.includes('node_modules'))
      .map((file) => path.join(tree, file)),
  );
  return new Map(
    files.map((file) => [
      file,
      [...readFileSync(path.join(root, file), 'utf8').matchAll(relativeImport)].map((match) =>
        path.join(path.dirname(file), String(match[1])),
      ),
    ]),
  );
}

/** A file's folder; a file directly in a tree (`infra/app.ts`, `functions/config.ts`) is its own unit. */
const folderOf = (file: string) => (trees.includes(path.dirname(file)) ? file : path.dirname(file));

function folderGraph(files: Graph): Graph {
  const folders = new Map<string, Set<string>>();
  for (const [file, imported] of files) {
    const from = folderOf(file);
    const to = folders.get(from) ?? new Set();
    for (const target of imported) if (folderOf(target) !== from) to.add(folderOf(target));
    folders.set(from, to);
  }
  return new Map([...folders].map(([folder, to]) => [folder, [...to]]));
}

/** The nodes on a cycle, grouped by the cycle they are on (Tarjan's strongly connected components). */
function cycles(graph: Graph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.size - 1);
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) visit(next);
      if (stack.includes(next)) low.set(node, Math.min(low.get(node) ?? 0, low.get(next) ?? 0));
    }
    if (low.get(node) !== index.get(node)) return;
    const component = stack.splice(stack.indexOf(node));
    if (component.length > 1 || graph.get(node)?.includes(node)) found.push(component.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

describe('imports', () => {
  const files = fileGraph();

  it('are read from every tree, and a cycle among them would be found', () => {
    expect(files.get('functions/create-plant/handler.ts')).toContain(
      'functions/create-plant/create-plant.ts',
    );
    expect(
      cycles(
        new Map([
          ['a', ['b']],
          ['b', ['c']],
          ['c', ['a']],
          ['d', ['a']],
        ]),
      ),
    ).toEqual([['a', 'b', 'c']]);
  });

  it('form no cycle between files', () => {
    expect(cycles(files)).toEqual([]);
  });

  it('form no cycle between folders: a folder never imports a folder that imports it', () => {
    expect(cycles(folderGraph(files))).toEqual([]);
  });

  it('leave http/ knowing nothing of auth/, plants/ or any operation: only the log', () => {
    const httpImports = [...files]
      .filter(([file]) => file.startsWith('functions/http/'))
      .flatMap(([, imported]) => imported);

    const outside = httpImports.filter((file) => !file.startsWith('functions/http/'));
    expect([...new Set(outside)]).toEqual(['functions/log.ts']);
  });
});
