// `npm run docs`: the API reference as one self-contained HTML file any static host can serve.
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { staticDocsPage } from '../dev-server/api-docs.ts';

const { values } = parseArgs({
  options: { out: { type: 'string', default: 'dist/docs/index.html' } },
});
const outFile = resolve(values.out);
const page = await staticDocsPage();
await mkdir(dirname(outFile), { recursive: true });
await writeFile(outFile, page);
const shown = relative(process.cwd(), outFile);
console.log(
  `Wrote ${shown.startsWith('..') ? outFile : shown} (${Math.round(page.length / 1024)} KiB): ` +
    'open it in a browser, or upload it to any static host.',
);
