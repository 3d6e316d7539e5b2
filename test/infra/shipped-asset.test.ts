import { randomUUID } from 'node:crypto';
import { readdir, readFile, rm } from 'node:fs/promises';
import { isBuiltin } from 'node:module';
import path from 'node:path';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  type CfnTemplate,
  findLambdaFunction,
  type LambdaFunctionSpec,
  synthesizeApp,
} from '../support/cloud-assembly.ts';
import { type Deployment, evaluateCfn } from '../support/cloudformation.ts';
import { type DynaliteServer, startDynalite } from '../support/dynalite-server.ts';
import { extractedMetrics } from '../support/emf.ts';
import { fakeDeleteEvent, fakeEvent, fakeListEvent } from '../support/fake-event.ts';
import { type HttpsEndpoint, startHttpsEndpoint } from '../support/https-endpoint.ts';
import { deployedEnvironment } from '../support/lambda-environment.ts';
import {
  type InvokeResult,
  type LambdaProcess,
  startLambdaProcess,
} from '../support/lambda-process.ts';
import { startTestIssuer, type TestIssuer } from '../support/test-issuer.ts';
import { createThrowawayCa, type ThrowawayCa } from '../support/throwaway-ca.ts';

/**
 * The asset `npx cdk synth` writes to cdk.out, in the default Cognito mode, run as Lambda runs it:
 * a fresh process loads the file the template's `Handler` names from the asset folder, with the
 * template's environment evaluated as CloudFormation would (the pool's `ProviderURL`, the app
 * client's id, the resource server's scope, the table) plus Lambda's own variables. DynamoDB
 * (dynalite) and the pool's JWKS (a test issuer) answer over TLS, trusted through
 * NODE_EXTRA_CA_CERTS; tokens are shaped like Cognito's client-credentials access tokens.
 */

const region = 'eu-west-1';
/** Shaped like Cognito's: `<region>_<9 characters>`; it ends the pool's `ProviderURL`. */
const userPoolId = `${region}_Pl4ntTest`;
/** Shaped like Cognito's app client ids: 26 lowercase letters and digits. */
const clientId = '4p1antst0reclient0id0abcde';

let ca: ThrowawayCa;
let issuer: TestIssuer;
let db: DynaliteServer;
let issuerEndpoint: HttpsEndpoint;
let storeEndpoint: HttpsEndpoint;
let outdir = '';
let fn: LambdaFunctionSpec;
let env: Record<string, string>;
let providerUrl: string;
let clientScopes: string[];
let lambda: LambdaProcess;
/** The list and delete functions' assets, each in a process of its own, as Lambda runs them. */
let others: Record<'list' | 'delete', { fn: LambdaFunctionSpec; lambda: LambdaProcess }>;

beforeAll(async () => {
  ca = await createThrowawayCa();
  [issuer, db] = await Promise.all([startTestIssuer({ path: `/${userPoolId}` }), startDynalite()]);
  [issuerEndpoint, storeEndpoint] = await Promise.all([
    startHttpsEndpoint(new URL(issuer.issuer), ca),
    startHttpsEndpoint(new URL(db.endpoint), ca),
  ]);
  providerUrl = `${issuerEndpoint.url.origin}/${userPoolId}`;

  const assembly = await synthesizeApp();
  outdir = assembly.outdir;
  fn = findLambdaFunction(assembly, 'CreatePlant/Function/Resource');
  const deployment: Deployment = {
    region,
    accountId: '123456789012',
    resources: {
      'AWS::DynamoDB::Table': { ref: db.tableName },
      'AWS::Cognito::UserPool': { ref: userPoolId, attributes: { ProviderURL: providerUrl } },
      'AWS::Cognito::UserPoolClient': { ref: clientId },
    },
  };
  clientScopes = machineClientScopes(fn.template, deployment);
  env = deployedEnvironment({ fn, deployment, ca, dynamodbEndpoint: storeEndpoint.url });
  const started = async (cdkPath: string) => {
    const spec = findLambdaFunction(assembly, cdkPath);
    const variables = deployedEnvironment({
      fn: spec,
      deployment,
      ca,
      dynamodbEndpoint: storeEndpoint.url,
    });
    return { fn: spec, lambda: await startLambdaProcess({ env: variables }) };
  };
  const [list, remove] = await Promise.all([
    started('ListPlants/Function/Resource'),
    started('DeletePlant/Function/Resource'),
  ]);
  others = { list, delete: remove };
  lambda = await startLambdaProcess({ env });
}, 120_000);

afterAll(async () => {
  await Promise.all([lambda?.close(), others?.list.lambda.close(), others?.delete.lambda.close()]);
  await Promise.all([issuerEndpoint?.close(), storeEndpoint?.close()]);
  await Promise.all([issuer?.close(), db?.close()]);
  // synthesizeApp and createThrowawayCa each make a temporary folder; nothing else removes them.
  if (outdir) await rm(outdir, { recursive: true, force: true });
  if (ca) await rm(ca.dir, { recursive: true, force: true });
});

/** The `AllowedOAuthScopes` of the app client with the client-credentials flow, evaluated. */
function machineClientScopes(template: CfnTemplate, deployment: Deployment): string[] {
  const clients = Object.values(template.Resources).filter(
    (resource) =>
      resource.Type === 'AWS::Cognito::UserPoolClient' &&
      (resource.Properties?.AllowedOAuthFlows as unknown[] | undefined)?.includes(
        'client_credentials',
      ),
  );
  expect(clients).toHaveLength(1);
  return evaluateCfn(template, clients[0]?.Properties?.AllowedOAuthScopes, deployment) as string[];
}

/**
 * What Cognito's token endpoint issues for `grant_type=client_credentials`: RS256, no `typ`, no
 * `aud`; `sub` and `client_id` are the app client, `scope` its granted scopes, space-separated.
 */
function cognitoAccessToken(overrides: Record<string, unknown> = {}): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return issuer.mint({
    issuer: providerUrl,
    expiresIn: 3600,
    header: { typ: undefined },
    claims: {
      sub: clientId,
      client_id: clientId,
      token_use: 'access',
      scope: clientScopes.join(' '),
      auth_time: now,
      version: 2,
      jti: randomUUID(),
      ...overrides,
    },
  });
}

let lastId = BigInt(Date.now()) * 1000n;
const freshId = () => String(++lastId);

async function invoke(event: ReturnType<typeof fakeEvent>): Promise<{
  readonly result: InvokeResult;
  readonly statusCode: number | undefined;
  readonly body: unknown;
}> {
  const result = await lambda.invoke(event);
  expect(result.error).toBeUndefined();
  const answer = result.result as APIGatewayProxyStructuredResultV2;
  return { result, statusCode: answer.statusCode, body: JSON.parse(answer.body ?? 'null') };
}

/** The function's JSON log line for one invoke: the runtime names the request `fixture-<id>`. */
/** The request's log line; the process writes it after the answer, so it may arrive a little later. */
async function requestLogLine(result: InvokeResult): Promise<Record<string, unknown>> {
  return vi.waitFor(() => {
    const lines = lambda
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.message === 'request' && line.requestId === `fixture-${result.id}`);
    expect(lines).toHaveLength(1);
    return lines[0] as Record<string, unknown>;
  });
}

describe('the create-plant asset in cdk.out', () => {
  it('is what the template Handler names: the bundle and its source map, nothing else', async () => {
    expect(fn.handler).toBe('index.handler');
    expect(fn.runtime).toBe('nodejs24.x');
    expect((await readdir(fn.assetDir)).sort()).toEqual(['index.mjs', 'index.mjs.map']);
  });

  it('is self-contained: every import it makes is a Node built-in', async () => {
    // esbuild parses the asset (static imports, dynamic imports, require calls) and resolves each
    // from the asset folder, as Lambda would; anything but a built-in would be bundled or fail.
    // Most built-ins are taken with `process.getBuiltinModule`, which names a built-in or throws.
    // A CommonJS dependency's `require` calls would go through the banner's own `require`, which
    // esbuild does not see as one; they can only name built-ins, since everything else is bundled.
    const { metafile } = await build({
      entryPoints: [path.join(fn.assetDir, 'index.mjs')],
      absWorkingDir: fn.assetDir,
      bundle: true,
      write: false,
      metafile: true,
      platform: 'node',
      format: 'esm',
      logLevel: 'silent',
    });

    expect(Object.keys(metafile.inputs)).toEqual(['index.mjs']);
    const code = await readFile(path.join(fn.assetDir, 'index.mjs'), 'utf8');
    const imports = [
      ...(metafile.inputs['index.mjs']?.imports.map((entry) => entry.path) ?? []),
      ...Array.from(
        code.matchAll(/getBuiltinModule\(["']([^"']+)["']\)/g),
        (match) => match[1] ?? '',
      ),
    ];
    expect(imports).toEqual(expect.arrayContaining(['node:https', 'node:net']));
    expect(imports.filter((specifier) => !isBuiltin(specifier))).toEqual([]);
  });

  it('contains no AWS SDK, and its source map leads to the TypeScript sources without holding them', async () => {
    const code = await readFile(path.join(fn.assetDir, 'index.mjs'), 'utf8');
    expect(code.trimEnd().endsWith('//# sourceMappingURL=index.mjs.map')).toBe(true);
    const map = JSON.parse(await readFile(path.join(fn.assetDir, 'index.mjs.map'), 'utf8')) as {
      sources: string[];
      sourcesContent?: unknown;
    };

    expect(map.sources.filter((source) => /@aws-sdk|@smithy|@aws-lite/.test(source))).toEqual([]);
    expect(map.sources).toEqual(
      expect.arrayContaining([expect.stringMatching(/functions\/create-plant\/handler\.ts$/)]),
    );
    expect(map.sourcesContent).toBeUndefined();
  });

  it("is configured by the template: the pool's ProviderURL, the client id, its scope, the table", () => {
    expect(clientScopes).toEqual(['plants/write', 'plants/read']);
    expect(env).toMatchObject({
      AUTH_ISSUER: providerUrl,
      AUTH_JWKS_URL: `${providerUrl}/.well-known/jwks.json`,
      AUTH_AUDIENCE: clientId,
      AUTH_SCOPE: 'plants/write',
      PLANTS_TABLE_NAME: db.tableName,
      AWS_LAMBDA_LOG_FORMAT: 'JSON',
    });
  });
});

describe('the create-plant asset, invoked as Lambda does, with a Cognito client-credentials token', () => {
  it('creates a plant (200), replays it (200) and refuses a conflicting one (409)', async () => {
    const id = freshId();
    const token = await cognitoAccessToken();
    const fern = JSON.stringify({ id: Number(id), name: 'Fern', tag: 'indoor' });

    const created = await invoke(fakeEvent({ token, body: fern }));
    const replayed = await invoke(fakeEvent({ token, body: fern }));
    const conflict = await invoke(
      fakeEvent({ token, body: JSON.stringify({ id: Number(id), name: 'Moss' }) }),
    );

    expect([created.statusCode, created.body]).toEqual([200, { name: 'Fern', tag: 'indoor' }]);
    expect([replayed.statusCode, replayed.body]).toEqual([200, { name: 'Fern', tag: 'indoor' }]);
    expect(conflict.statusCode).toBe(409);
    expect(await db.getItem(db.tableName, id)).toEqual({
      id: { N: id },
      name: { S: 'Fern' },
      tag: { S: 'indoor' },
    });
  });

  it('reached the pool JWKS and DynamoDB over TLS only', async () => {
    const { result } = await invoke(
      fakeEvent({
        token: await cognitoAccessToken(),
        body: JSON.stringify({ id: Number(freshId()), name: 'Fern' }),
      }),
    );

    const ports = new Set(result.socketTraces.map((socket) => socket.port));
    expect(ports).toEqual(
      new Set([Number(issuerEndpoint.url.port), Number(storeEndpoint.url.port)]),
    );
    expect(result.socketTraces.every((socket) => socket.secureAt !== undefined)).toBe(true);
    expect(issuer.jwksFetches()).toBeGreaterThanOrEqual(1);
  });

  it.each([
    ['no token', 401, undefined],
    ["another app client's token", 401, { client_id: 'otherclient0id000000000000' }],
    ['an ID token of the pool', 401, { token_use: 'id', aud: clientId }],
    ['a token with only the list scope', 403, { scope: 'plants/read' }],
  ] as const)('answers %s with %i', async (_case, status, claims) => {
    const token = claims === undefined ? undefined : await cognitoAccessToken(claims);
    const id = freshId();

    const { statusCode, body } = await invoke(
      fakeEvent({ token, body: JSON.stringify({ id: Number(id), name: 'Fern' }) }),
    );

    expect(statusCode).toBe(status);
    expect(body).toMatchObject({ error: status });
    expect(await db.getItem(db.tableName, id)).toBeUndefined();
  });

  it('writes one JSON log line per request, carrying its CloudWatch metrics', async () => {
    const created = await invoke(
      fakeEvent({
        token: await cognitoAccessToken(),
        body: JSON.stringify({ id: Number(freshId()), name: 'Fern' }),
      }),
    );
    const unauthorized = await invoke(fakeEvent({ body: '{"id":1,"name":"Fern"}' }));
    const service = env.AWS_LAMBDA_FUNCTION_NAME;

    const createdLine = await requestLogLine(created.result);
    expect(createdLine).toMatchObject({ status: 200, outcome: 'created', clientId });
    expect(extractedMetrics(createdLine)).toEqual([
      {
        namespace: 'PlantStore',
        dimensions: { Service: service },
        name: 'PlantsCreated',
        unit: 'Count',
        value: 1,
      },
      {
        namespace: 'PlantStore',
        dimensions: { Service: service },
        name: 'StoreLatency',
        unit: 'Milliseconds',
        value: expect.any(Number),
      },
    ]);

    const unauthorizedLine = await requestLogLine(unauthorized.result);
    expect(unauthorizedLine).toMatchObject({ status: 401, outcome: 'unauthorized' });
    const reason = unauthorizedLine.AuthFailureReason;
    expect(reason).toEqual(expect.any(String));
    expect(extractedMetrics(unauthorizedLine)).toEqual([
      {
        namespace: 'PlantStore',
        dimensions: { Service: service },
        name: 'AuthFailures',
        unit: 'Count',
        value: 1,
      },
      {
        namespace: 'PlantStore',
        dimensions: { Service: service, AuthFailureReason: reason },
        name: 'AuthFailures',
        unit: 'Count',
        value: 1,
      },
    ]);
    expect(lambda.output()).not.toMatch(/eyJ[\w-]+\.eyJ/);
  });
});

describe.each(['list', 'delete'] as const)('the %s asset in cdk.out', (which) => {
  it('is the bundle and its source map the template names, self-contained, with no AWS SDK', async () => {
    const { fn: spec } = others[which];
    const folder = which === 'list' ? 'list-plants' : 'delete-plant';

    expect([spec.handler, spec.runtime]).toEqual(['index.handler', 'nodejs24.x']);
    expect((await readdir(spec.assetDir)).sort()).toEqual(['index.mjs', 'index.mjs.map']);
    const { metafile } = await build({
      entryPoints: [path.join(spec.assetDir, 'index.mjs')],
      absWorkingDir: spec.assetDir,
      bundle: true,
      write: false,
      metafile: true,
      platform: 'node',
      format: 'esm',
      logLevel: 'silent',
    });
    expect(Object.keys(metafile.inputs)).toEqual(['index.mjs']);
    const code = await readFile(path.join(spec.assetDir, 'index.mjs'), 'utf8');
    const imports = [
      ...(metafile.inputs['index.mjs']?.imports.map((entry) => entry.path) ?? []),
      ...Array.from(
        code.matchAll(/getBuiltinModule\(["']([^"']+)["']\)/g),
        (match) => match[1] ?? '',
      ),
    ];
    expect(imports.filter((specifier) => !isBuiltin(specifier))).toEqual([]);
    const map = JSON.parse(await readFile(path.join(spec.assetDir, 'index.mjs.map'), 'utf8')) as {
      sources: string[];
    };
    expect(map.sources.filter((source) => /@aws-sdk|@smithy/.test(source))).toEqual([]);
    expect(map.sources).toEqual(
      expect.arrayContaining([
        expect.stringMatching(new RegExp(`functions/${folder}/handler\\.ts$`)),
      ]),
    );
  });
});

describe('the list and delete assets, invoked as Lambda does, with a Cognito client-credentials token', () => {
  /** The asset's answer, its body as sent. */
  async function ask(which: 'list' | 'delete', event: ReturnType<typeof fakeEvent>) {
    const result = await others[which].lambda.invoke(event);
    expect(result.error).toBeUndefined();
    return result.result as APIGatewayProxyStructuredResultV2;
  }

  /** Every page from the first, following each Link; the raw bodies. */
  async function walk(token: string, limit: number): Promise<string[]> {
    const bodies: string[] = [];
    let query: string | undefined = `limit=${limit}`;
    while (query !== undefined) {
      const page = await ask('list', fakeListEvent(query, { token }));
      expect(page.statusCode).toBe(200);
      bodies.push(page.body ?? '');
      const link = String(page.headers?.link ?? '');
      query = /^<\/plants\?([^>]+)>; rel="next"$/.exec(link)?.[1];
    }
    return bodies;
  }

  it('gets the scope each operation requires from the template: plants/read to list, plants/write to delete', () => {
    const scopeOf = (which: 'list' | 'delete') =>
      evaluateCfn(fn.template, others[which].fn.environment.AUTH_SCOPE, {
        region,
        accountId: '123456789012',
        resources: {},
      });

    expect([scopeOf('list'), scopeOf('delete')]).toEqual(['plants/read', 'plants/write']);
  });

  it('lists a plant the create asset stored, its exact int64 id a JSON number, on one of the pages', async () => {
    const token = await cognitoAccessToken();
    const id = '9007199254740993';
    const created = await invoke(
      fakeEvent({ token, body: `{"id":${id},"name":"Fern","tag":"indoor"}` }),
    );
    expect(created.statusCode).toBe(200);

    const bodies = await walk(token, 2);

    const found = bodies.filter((body) =>
      body.includes(`{"id":${id},"name":"Fern","tag":"indoor"}`),
    );
    expect(found).toHaveLength(1);
    for (const body of bodies) expect(Array.isArray(JSON.parse(body))).toBe(true);
  });

  it('deletes a plant the create asset stored (204, no body), and again (204), leaving no item', async () => {
    const token = await cognitoAccessToken();
    const id = freshId();
    await invoke(fakeEvent({ token, body: JSON.stringify({ id: Number(id), name: 'Moss' }) }));
    expect(await db.getItem(db.tableName, id)).toBeDefined();

    const first = await ask('delete', fakeDeleteEvent(id, { token }));
    const again = await ask('delete', fakeDeleteEvent(id, { token }));

    for (const answer of [first, again]) {
      expect(answer.statusCode).toBe(204);
      expect(answer.body ?? '').toBe('');
    }
    expect(await db.getItem(db.tableName, id)).toBeUndefined();
  });

  it.each([
    ['list', 'no token', undefined, 401],
    ['list', 'a token with only plants/write', 'plants/write', 403],
    ['delete', 'no token', undefined, 401],
    ['delete', 'a token with only plants/read', 'plants/read', 403],
  ] as const)(
    'answers a %s with %s: %i, and leaves the table as it was',
    async (which, _case, scope, status) => {
      const token = scope === undefined ? undefined : await cognitoAccessToken({ scope });
      const id = freshId();
      await invoke(
        fakeEvent({
          token: await cognitoAccessToken(),
          body: JSON.stringify({ id: Number(id), name: 'Ivy' }),
        }),
      );

      const answer = await ask(
        which,
        which === 'list' ? fakeListEvent('', { token }) : fakeDeleteEvent(id, { token }),
      );

      expect(answer.statusCode).toBe(status);
      expect(JSON.parse(answer.body ?? '')).toMatchObject({ error: status });
      expect(await db.getItem(db.tableName, id)).toBeDefined();
    },
  );

  it.each([
    ['list', 'a limit of 0', () => fakeListEvent('limit=0'), /limit/],
    ['delete', 'an id in another spelling', () => fakeDeleteEvent('01'), /id/],
  ] as const)('answers a %s with %s: 400 naming it', async (which, _case, event, named) => {
    const token = await cognitoAccessToken();
    const request = event();
    request.headers.authorization = `Bearer ${token}`;

    const answer = await ask(which, request);

    expect(answer.statusCode).toBe(400);
    expect(JSON.parse(answer.body ?? '').message).toMatch(named);
  });
});
