import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { operations, routeKey } from '../functions/operations.ts';
import packageJson from '../package.json' with { type: 'json' };

const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');

/** The routes of "The API in one table": the first cell of each row, as `METHOD /path`. */
function tableRoutes(): Set<string> {
  const section = readme.split(/^## /m).find((part) => part.startsWith('The API in one table'));
  if (section === undefined) throw new Error('README.md has no "The API in one table" section');
  const routes = [...section.matchAll(/^\| `([A-Z]+ \/[^`]*)` \|/gm)].map(
    (match) => match[1] ?? '',
  );
  return new Set(routes);
}

describe('README.md', () => {
  it.each(operations.map((operation) => [routeKey(operation), operation.name]))(
    'has rows for %s (%s) in its API table',
    (route) => {
      expect(tableRoutes()).toContain(route);
    },
  );

  it('has API table rows for no route the list does not declare', () => {
    const declared = new Set(operations.map(routeKey));

    expect([...tableRoutes()].filter((route) => !declared.has(route))).toStrictEqual([]);
  });

  it("package.json's description says what the project is without a list of routes to drift", () => {
    expect(packageJson.description).toMatch(/plant store/i);
    expect(packageJson.description).not.toMatch(/\b(?:GET|POST|PUT|PATCH|DELETE) \//);
  });
});
