// `npm run client:generate`: openapi.yaml's types; test/clients/client-drift.test.ts guards drift.
import { writeFile } from 'node:fs/promises';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';

export const specUrl = new URL('../openapi.yaml', import.meta.url);
export const generatedFile = new URL('../clients/plant-store.generated.ts', import.meta.url);

const header = `// Generated from openapi.yaml by openapi-typescript (npm run client:generate). Do not edit:
// change openapi.yaml and run the script again.

`;

export async function generateClientTypes(): Promise<string> {
  const ast = await openapiTS(specUrl, {
    // `format: int64` ids go beyond 2^53, where a JavaScript number rounds: the client accepts a
    // bigint too, and clients/plant-store-client.ts writes it into the JSON digit for digit.
    transform: (schema) =>
      'format' in schema && schema.format === 'int64'
        ? ts.factory.createUnionTypeNode([
            ts.factory.createKeywordTypeNode(ts.SyntaxKind.NumberKeyword),
            ts.factory.createKeywordTypeNode(ts.SyntaxKind.BigIntKeyword),
          ])
        : undefined,
  });
  return `${header}${astToString(ast)}`;
}

if (import.meta.main) {
  await writeFile(generatedFile, await generateClientTypes());
  console.log(`Wrote ${generatedFile.pathname.slice(process.cwd().length + 1)} from openapi.yaml`);
}
