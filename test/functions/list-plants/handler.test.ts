import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operation as listPlants } from '../../../functions/list-plants/operation.ts';
import { hygieneHeaders } from '../../support/contract.ts';
import { fakeOperationEvent } from '../../support/fake-event.ts';
import { listedPlants } from '../../support/list-pages.ts';
import { type BundledOperation, startBundledOperation } from '../../support/operation-bundle.ts';

let operation: BundledOperation;

beforeAll(async () => {
  operation = await startBundledOperation('list-plants');
}, 60_000);
afterAll(() => operation?.close());

const answer = async (token: string) => {
  const { ok, result, error } = await operation.fn.invoke(
    fakeOperationEvent(listPlants, { query: 'limit=5' }, { token }),
  );
  expect(ok, error).toBe(true);
  return result as APIGatewayProxyStructuredResultV2;
};

describe('functions/list-plants/handler.ts', () => {
  it('bundles without zod, the NewPlant schema or the JSON body parser: a list reads no body', () => {
    const inputs = operation.bundle.inputs.join('\n');

    expect(inputs).toContain('functions/list-plants/handler.ts');
    expect(inputs).not.toMatch(/node_modules\/zod\//);
    expect(inputs).not.toContain('functions/plants/new-plant.ts');
    expect(inputs).not.toContain('@middy/http-json-body-parser');
    expect(inputs).not.toContain('functions/create-plant/');
    expect(inputs).not.toContain('functions/delete-plant/');
  });

  it('answers from the table under the Lambda runtime, requiring the scope AUTH_SCOPE names', async () => {
    const [reader, writer] = await Promise.all([
      operation.issuer.mint({ claims: { scope: 'plants/read' } }),
      operation.issuer.mint({ claims: { scope: 'plants/write' } }),
    ]);

    const listed = await answer(reader);
    const refused = await answer(writer);

    expect(listed.statusCode).toBe(200);
    expect(listed.headers).toStrictEqual(hygieneHeaders);
    expect(listedPlants(listed)).toStrictEqual([]);
    expect(refused.statusCode).toBe(403);
    expect(refused.headers?.['www-authenticate']).toMatch(/scope="plants\/read"$/);
    expect(operation.fn.output()).toMatch(/"outcome":"listed"/);
  });
});
