import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envNames } from '../../../functions/config.ts';
import { hygieneHeaders } from '../../support/contract.ts';
import { type DynaliteServer, startDynalite } from '../../support/dynalite-server.ts';
import { fakeListEvent } from '../../support/fake-event.ts';
import type { LambdaProcess } from '../../support/lambda-process.ts';
import { listedPlants } from '../../support/list-pages.ts';
import { buildOperationBundle, type OperationBundle } from '../../support/operation-bundle.ts';
import { startTestIssuer, type TestIssuer } from '../../support/test-issuer.ts';

let bundle: OperationBundle;
let dynalite: DynaliteServer;
let issuer: TestIssuer;
let fn: LambdaProcess;

beforeAll(async () => {
  [bundle, dynalite, issuer] = await Promise.all([
    buildOperationBundle('list-plants'),
    startDynalite(),
    startTestIssuer(),
  ]);
  fn = await bundle.start(
    {
      [envNames.tableName]: dynalite.tableName,
      [envNames.issuer]: issuer.issuer,
      [envNames.audiences]: 'test-client',
      [envNames.scope]: 'plants/read',
    },
    dynalite.endpoint,
  );
}, 60_000);
afterAll(async () => {
  await fn?.close();
  await Promise.all([bundle?.remove(), dynalite?.close(), issuer?.close()]);
});

const answer = async (token: string) => {
  const { ok, result, error } = await fn.invoke(fakeListEvent('limit=5', { token }));
  expect(ok, error).toBe(true);
  return result as APIGatewayProxyStructuredResultV2;
};

describe('functions/list-plants/handler.ts', () => {
  it('bundles without zod, the NewPlant schema or the JSON body parser: a list reads no body', () => {
    const inputs = bundle.inputs.join('\n');

    expect(inputs).toContain('functions/list-plants/handler.ts');
    expect(inputs).not.toMatch(/node_modules\/zod\//);
    expect(inputs).not.toContain('functions/plants/new-plant.ts');
    expect(inputs).not.toContain('@middy/http-json-body-parser');
    expect(inputs).not.toContain('functions/create-plant/');
    expect(inputs).not.toContain('functions/delete-plant/');
  });

  it('answers from the table under the Lambda runtime, requiring the scope AUTH_SCOPE names', async () => {
    const [reader, writer] = await Promise.all([
      issuer.mint({ claims: { scope: 'plants/read' } }),
      issuer.mint({ claims: { scope: 'plants/write' } }),
    ]);

    const listed = await answer(reader);
    const refused = await answer(writer);

    expect(listed.statusCode).toBe(200);
    expect(listed.headers).toStrictEqual(hygieneHeaders);
    expect(listedPlants(listed)).toStrictEqual([]);
    expect(refused.statusCode).toBe(403);
    expect(refused.headers?.['www-authenticate']).toMatch(/scope="plants\/read"$/);
    expect(fn.output()).toMatch(/"outcome":"listed"/);
  });
});
