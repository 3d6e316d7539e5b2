import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operation as deletePlant } from '../../../functions/delete-plant/operation.ts';
import { noContentHeaders } from '../../support/contract.ts';
import { fakeOperationEvent } from '../../support/fake-event.ts';
import { type BundledOperation, startBundledOperation } from '../../support/operation-bundle.ts';

let operation: BundledOperation;

beforeAll(async () => {
  operation = await startBundledOperation('delete-plant');
}, 60_000);
afterAll(() => operation?.close());

const answer = async (token: string) => {
  const { ok, result, error } = await operation.fn.invoke(
    fakeOperationEvent(deletePlant, { pathParameters: { id: '42' } }, { token }),
  );
  expect(ok, error).toBe(true);
  return result as APIGatewayProxyStructuredResultV2;
};

describe('functions/delete-plant/handler.ts', () => {
  it('bundles without zod, the NewPlant schema or the JSON body parser: a delete reads no body', () => {
    const inputs = operation.bundle.inputs.join('\n');

    expect(inputs).toContain('functions/delete-plant/handler.ts');
    expect(inputs).not.toMatch(/node_modules\/zod\//);
    expect(inputs).not.toContain('functions/plants/new-plant.ts');
    expect(inputs).not.toContain('@middy/http-json-body-parser');
    expect(inputs).not.toContain('functions/create-plant/');
    expect(inputs).not.toContain('functions/list-plants/');
  });

  it('deletes in the table under the Lambda runtime, requiring the scope AUTH_SCOPE names', async () => {
    const [writer, reader] = await Promise.all([
      operation.issuer.mint({ claims: { scope: 'plants/write' } }),
      operation.issuer.mint({ claims: { scope: 'plants/read' } }),
    ]);

    const deleted = await answer(writer);
    const refused = await answer(reader);

    expect(deleted).toStrictEqual({ statusCode: 204, headers: noContentHeaders });
    expect(refused.statusCode).toBe(403);
    expect(refused.headers?.['www-authenticate']).toMatch(/scope="plants\/write"$/);
    expect(operation.fn.output()).toMatch(/"outcome":"absent"/);
  });
});
