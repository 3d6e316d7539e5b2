import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envNames } from '../../../functions/config.ts';
import { noContentHeaders } from '../../support/contract.ts';
import { type DynaliteServer, startDynalite } from '../../support/dynalite-server.ts';
import { fakeDeleteEvent } from '../../support/fake-event.ts';
import type { LambdaProcess } from '../../support/lambda-process.ts';
import { buildOperationBundle, type OperationBundle } from '../../support/operation-bundle.ts';
import { startTestIssuer, type TestIssuer } from '../../support/test-issuer.ts';

let bundle: OperationBundle;
let dynalite: DynaliteServer;
let issuer: TestIssuer;
let fn: LambdaProcess;

beforeAll(async () => {
  [bundle, dynalite, issuer] = await Promise.all([
    buildOperationBundle('delete-plant'),
    startDynalite(),
    startTestIssuer(),
  ]);
  fn = await bundle.start(
    {
      [envNames.tableName]: dynalite.tableName,
      [envNames.issuer]: issuer.issuer,
      [envNames.audiences]: 'test-client',
      [envNames.scope]: 'plants/write',
    },
    dynalite.endpoint,
  );
}, 60_000);
afterAll(async () => {
  await fn?.close();
  await Promise.all([bundle?.remove(), dynalite?.close(), issuer?.close()]);
});

const answer = async (token: string) => {
  const { ok, result, error } = await fn.invoke(fakeDeleteEvent('42', { token }));
  expect(ok, error).toBe(true);
  return result as APIGatewayProxyStructuredResultV2;
};

describe('functions/delete-plant/handler.ts', () => {
  it('bundles without zod, the NewPlant schema or the JSON body parser: a delete reads no body', () => {
    const inputs = bundle.inputs.join('\n');

    expect(inputs).toContain('functions/delete-plant/handler.ts');
    expect(inputs).not.toMatch(/node_modules\/zod\//);
    expect(inputs).not.toContain('functions/plants/new-plant.ts');
    expect(inputs).not.toContain('@middy/http-json-body-parser');
    expect(inputs).not.toContain('functions/create-plant/');
    expect(inputs).not.toContain('functions/list-plants/');
  });

  it('deletes in the table under the Lambda runtime, requiring the scope AUTH_SCOPE names', async () => {
    const [writer, reader] = await Promise.all([
      issuer.mint({ claims: { scope: 'plants/write' } }),
      issuer.mint({ claims: { scope: 'plants/read' } }),
    ]);

    const deleted = await answer(writer);
    const refused = await answer(reader);

    expect(deleted).toStrictEqual({ statusCode: 204, headers: noContentHeaders });
    expect(refused.statusCode).toBe(403);
    expect(refused.headers?.['www-authenticate']).toMatch(/scope="plants\/write"$/);
    expect(fn.output()).toMatch(/"outcome":"absent"/);
  });
});
