import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { generateClientTypes, generatedFile } from '../../scripts/generate-client.ts';

describe('generated client types (clients/plant-store.generated.ts)', () => {
  it('match what openapi.yaml generates now: run `npm run client:generate` after changing the spec', async () => {
    const committed = await readFile(generatedFile, 'utf8');

    const generated = await generateClientTypes();

    expect(committed).toBe(generated);
  });
});
