import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { isBuiltin } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { type BuildOptions, build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  type CfnTemplate,
  type CloudAssembly,
  findLambdaFunction,
  type LambdaFunctionSpec,
} from '../../bench/support/cloud-assembly.ts';
import { type Deployment, evaluateCfn } from '../../bench/support/cloudformation.ts';
import { type HttpsEndpoint, startHttpsEndpoint } from '../../bench/support/https-endpoint.ts';
import { deployedEnvironment } from '../../bench/support/lambda-environment.ts';
import {
  type InvokeResult,
  type LambdaProcess,
  startLambdaProcess,
} from '../../bench/support/lambda-process.ts';
import { createThrowawayCa, type ThrowawayCa } from '../../bench/support/throwaway-ca.ts';
import {
  type CheckAnswer,
  type CheckRequest,
  freshPlantId,
  runChecks,
} from '../../functions/checks/runner.ts';
import { checksOf, type Operation, operations } from '../../functions/operations.ts';
import { payloadV2Event } from '../../functions/pre-traffic-check/invoke-version.ts';
import { tableFixture } from '../../functions/pre-traffic-check/table-fixture.ts';
import {
  bundleFileName,
  esbuildOptionsFor,
  preTrafficCheckEsbuildOptions,
} from '../../infra/bundling/bundling.ts';
import { operationConstructId } from '../../infra/constructs/operation-function.ts';
import { type DynaliteServer, startDynalite } from '../support/dynalite-server.ts';
import { extractedMetrics } from '../support/emf.ts';
import {
  fakeDeleteEvent,
  fakeEvent,
  fakeListEvent,
  fakeOperationEvent,
} from '../support/fake-event.ts';
import { sharedAssembly, sharedAssemblyTimeoutMs } from '../support/shared-assembly.ts';
import { startTestIssuer, type TestIssuer } from '../support/test-issuer.ts';

/**
 * The assets `npx cdk synth` writes to cdk.out, in the default Cognito mode, run as Lambda runs
 * them: each operation's function in a fresh process of its own, which loads the file the
 * template's `Handler` names from its asset folder, with the template's environment evaluated as
 * CloudFormation would (the pool's `ProviderURL`, the app client's id, the resource server's
 * scope, the table) plus Lambda's own variables. DynamoDB (dynalite) and the pool's JWKS (a test
 * issuer) answer over TLS, trusted through NODE_EXTRA_CA_CERTS; tokens are shaped like Cognito's
 * client-credentials access tokens. Every operation in `functions/operations.ts` is run; a few
 * tests after those follow plants from one operation to another.
 */

const region = 'eu-west-1';
const accountId = '123456789012';
/** Shaped like Cognito's: `<region>_<9 characters>`; it ends the pool's `ProviderURL`. */
const userPoolId = `${region}_Pl4ntTest`;
/** Shaped like Cognito's app client ids: 26 lowercase letters and digits. */
const clientId = '4p1antst0reclient0id0abcde';

/** An operation's function as the template makes it, running as Lambda would run it. */
type Running = {
  readonly fn: LambdaFunctionSpec;
  /** Its environment: the template's variables evaluated, and Lambda's own. */
  readonly env: Record<string, string>;
  readonly lambda: LambdaProcess;
};

let ca: ThrowawayCa;
let issuer: TestIssuer;
let db: DynaliteServer;
let issuerEndpoint: HttpsEndpoint;
let storeEndpoint: HttpsEndpoint;
let providerUrl: string;
let clientScopes: string[];
/** Each operation's function, by its name. */
const running = new Map<string, Running>();
/** Each operation's pre-traffic hook, as the template makes it. */
let hooks: LambdaFunctionSpec[];

beforeAll(async () => {
  ca = await createThrowawayCa();
  [issuer, db] = await Promise.all([startTestIssuer({ path: `/${userPoolId}` }), startDynalite()]);
  [issuerEndpoint, storeEndpoint] = await Promise.all([
    startHttpsEndpoint(new URL(issuer.issuer), ca),
    startHttpsEndpoint(new URL(db.endpoint), ca),
  ]);
  providerUrl = `${issuerEndpoint.url.origin}/${userPoolId}`;

  // The templates and the assets, not the CloudFormation validation report: app.test.ts reads it.
  const assembly = await sharedAssembly();
  const deployment: Deployment = {
    region,
    accountId,
    resources: {
      'AWS::DynamoDB::Table': { ref: db.tableName },
      'AWS::Cognito::UserPool': { ref: userPoolId, attributes: { ProviderURL: providerUrl } },
      'AWS::Cognito::UserPoolClient': { ref: clientId },
    },
  };
  const started = await Promise.all(
    operations.map(async (operation) => {
      const fn = findLambdaFunction(
        assembly,
        `${operationConstructId(operation)}/Function/Resource`,
      );
      const env = deployedEnvironment({ fn, deployment, ca, dynamodbEndpoint: storeEndpoint.url });
      return [operation.name, { fn, env, lambda: await startLambdaProcess({ env }) }] as const;
    }),
  );
  for (const [name, each] of started) running.set(name, each);
  hooks = operations.map((operation) => hookOf(assembly, operation));
  const [stage] = assembly.stacks.filter(({ name }) => name.startsWith('PlantStore-'));
  if (stage === undefined) throw new Error('no stage stack in the assembly');
  clientScopes = machineClientScopes(stage.template, deployment);
}, sharedAssemblyTimeoutMs);

afterAll(async () => {
  await Promise.all([...running.values()].map(({ lambda }) => lambda.close()));
  await Promise.all([issuerEndpoint?.close(), storeEndpoint?.close()]);
  await Promise.all([issuer?.close(), db?.close()]);
  // synthesizeApp and createThrowawayCa each make a temporary folder; nothing else removes them.
  if (ca) await rm(ca.dir, { recursive: true, force: true });
});

function hookOf(assembly: CloudAssembly, operation: Operation): LambdaFunctionSpec {
  return findLambdaFunction(
    assembly,
    `${operationConstructId(operation)}/PreTrafficCheck/Function/Resource`,
  );
}

function runningOf(operation: Pick<Operation, 'name'>): Running {
  const found = running.get(operation.name);
  if (found === undefined) throw new Error(`${operation.name} is not running`);
  return found;
}

const byName = (name: string): Operation => {
  const found = operations.find((operation) => operation.name === name);
  if (found === undefined) throw new Error(`no operation ${name}`);
  return found;
};

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

/** Invokes the operation's function; it must answer, not fail. */
async function ask(
  operation: Pick<Operation, 'name'>,
  event: APIGatewayProxyEventV2,
): Promise<{ readonly result: InvokeResult; readonly answer: APIGatewayProxyStructuredResultV2 }> {
  const result = await runningOf(operation).lambda.invoke(event);
  expect(result.error).toBeUndefined();
  return { result, answer: result.result as APIGatewayProxyStructuredResultV2 };
}

/** The operation's sample request about the plant `id`, as API Gateway hands it over. */
const sampleEvent = (operation: Operation, id: string, token: string | undefined) =>
  fakeOperationEvent(operation, checksOf(operation).sample.request(id), { token });

/** Stores a plant through the create asset, as a client would; the id travels exactly. */
async function storePlant(id: string, plant: Record<string, string> = { name: 'Ivy' }) {
  const body = `{"id":${id},${JSON.stringify(plant).slice(1)}`;
  const { answer } = await ask(
    byName('create-plant'),
    fakeEvent({ token: await cognitoAccessToken(), body }),
  );
  expect(answer.statusCode).toBe(200);
}

/** The request's log line; the process writes it after the answer, so it may arrive a little later. */
async function requestLogLine(
  operation: Operation,
  result: InvokeResult,
): Promise<Record<string, unknown>> {
  return vi.waitFor(() => {
    const lines = runningOf(operation)
      .lambda.output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.message === 'request' && line.requestId === `fixture-${result.id}`);
    expect(lines).toHaveLength(1);
    return lines[0] as Record<string, unknown>;
  });
}

/** Every import a bundle makes: esbuild's view of it, and the built-ins it takes by name. */
async function importsOf(assetDir: string): Promise<{ files: string[]; imports: string[] }> {
  // esbuild parses the asset (static imports, dynamic imports, require calls) and resolves each
  // from the asset folder, as Lambda would; anything but a built-in would be bundled or fail.
  // Most built-ins are taken with `process.getBuiltinModule`, which names a built-in or throws.
  // A CommonJS dependency's `require` calls would go through the banner's own `require`, which
  // esbuild does not see as one; they can only name built-ins, since everything else is bundled.
  const { metafile } = await build({
    entryPoints: [path.join(assetDir, bundleFileName)],
    absWorkingDir: assetDir,
    bundle: true,
    write: false,
    metafile: true,
    platform: 'node',
    format: 'esm',
    logLevel: 'silent',
  });
  const code = await readFile(path.join(assetDir, bundleFileName), 'utf8');
  return {
    files: Object.keys(metafile.inputs),
    imports: [
      ...(metafile.inputs[bundleFileName]?.imports.map((entry) => entry.path) ?? []),
      ...Array.from(
        code.matchAll(/getBuiltinModule\(["']([^"']+)["']\)/g),
        (match) => match[1] ?? '',
      ),
    ],
  };
}

/** What esbuild's JS API writes for these options: the bundle, as text. */
async function built(options: BuildOptions): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'plant-bundle-'));
  try {
    await build({ ...options, outdir: dir, logLevel: 'silent' });
    return await readFile(path.join(dir, bundleFileName), 'utf8');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe.each(operations)('the $name asset in cdk.out', (operation) => {
  const spec = () => runningOf(operation).fn;

  it('is what the template Handler names: the bundle and its source map, nothing else', async () => {
    expect([spec().handler, spec().runtime]).toEqual(['index.handler', 'nodejs24.x']);
    expect((await readdir(spec().assetDir)).sort()).toEqual([
      bundleFileName,
      `${bundleFileName}.map`,
    ]);
  });

  it('is self-contained: every import it makes is a Node built-in, TLS and sockets among them', async () => {
    const { files, imports } = await importsOf(spec().assetDir);

    expect(files).toEqual([bundleFileName]);
    expect(imports).toEqual(expect.arrayContaining(['node:https', 'node:net']));
    expect(imports.filter((specifier) => !isBuiltin(specifier))).toEqual([]);
  });

  it('contains no AWS SDK, and its source map leads to the TypeScript sources without holding them', async () => {
    const file = path.join(spec().assetDir, bundleFileName);
    const code = await readFile(file, 'utf8');
    expect(code.trimEnd().endsWith(`//# sourceMappingURL=${bundleFileName}.map`)).toBe(true);
    const map = JSON.parse(await readFile(`${file}.map`, 'utf8')) as {
      sources: string[];
      sourcesContent?: unknown;
    };

    expect(map.sources.filter((source) => /@aws-sdk|@smithy|@aws-lite/.test(source))).toEqual([]);
    expect(map.sources).toEqual(
      expect.arrayContaining([
        expect.stringMatching(new RegExp(`functions/${operation.name}/handler\\.ts$`)),
      ]),
    );
    expect(map.sourcesContent).toBeUndefined();
  });

  it('is byte for byte the bundle the shared esbuild options build from its own entry', async () => {
    const shipped = await readFile(path.join(spec().assetDir, bundleFileName), 'utf8');

    expect(await built(esbuildOptionsFor(operation.name))).toBe(shipped);
  });

  it(`is configured by the template: the pool's ProviderURL, the client id, ${operation.scope}, the table`, () => {
    expect(clientScopes).toContain(operation.scope);
    expect(runningOf(operation).env).toMatchObject({
      AUTH_ISSUER: providerUrl,
      AUTH_JWKS_URL: `${providerUrl}/.well-known/jwks.json`,
      AUTH_AUDIENCE: clientId,
      AUTH_SCOPE: operation.scope,
      PLANTS_TABLE_NAME: db.tableName,
      AWS_LAMBDA_LOG_FORMAT: 'JSON',
    });
  });
});

describe('the pre-traffic hooks’ asset in cdk.out', () => {
  it('is one bundle for every operation, byte for byte what its esbuild options build', async () => {
    const shipped = await Promise.all(
      hooks.map((hook) => readFile(path.join(hook.assetDir, bundleFileName), 'utf8')),
    );

    expect(hooks).toHaveLength(operations.length);
    const expected = await built(preTrafficCheckEsbuildOptions);
    for (const each of shipped) expect(each).toBe(expected);
  });
});

describe.each(operations)(
  'the $name asset, invoked as Lambda does, with a Cognito client-credentials token',
  (operation) => {
    it(`answers its sample request about an id no plant has with ${checksOf(operation).sample.status}`, async () => {
      const { answer } = await ask(
        operation,
        sampleEvent(operation, freshId(), await cognitoAccessToken()),
      );

      expect(answer.statusCode).toBe(checksOf(operation).sample.status);
    });

    it('reached the pool JWKS and DynamoDB over TLS only', async () => {
      const { result } = await ask(
        operation,
        sampleEvent(operation, freshId(), await cognitoAccessToken()),
      );

      const ports = new Set(result.socketTraces.map((socket) => socket.port));
      expect(ports).toEqual(
        new Set([Number(issuerEndpoint.url.port), Number(storeEndpoint.url.port)]),
      );
      expect(result.socketTraces.every((socket) => socket.secureAt !== undefined)).toBe(true);
      expect(issuer.jwksFetches()).toBeGreaterThanOrEqual(1);
    });

    it('passes its checks, sent as its hook sends them to a new version, with its plant kept in the table', async () => {
      const send = async (request: CheckRequest): Promise<CheckAnswer> => {
        const { answer } = await ask(operation, payloadV2Event(request, accountId, operation));
        const body = answer.body ?? '';
        return {
          status: answer.statusCode ?? 0,
          headers: Object.fromEntries(
            Object.entries(answer.headers ?? {}).map(([name, value]) => [name, String(value)]),
          ),
          body: answer.isBase64Encoded ? Buffer.from(body, 'base64').toString('utf8') : body,
        };
      };
      const id = freshPlantId();

      const report = await runChecks(operation, checksOf(operation), {
        send,
        // The table as the hook reaches it, here past the TLS front this process does not trust.
        fixture: tableFixture(
          { ...runningOf(operation).env, AWS_ENDPOINT_URL_DYNAMODB: db.endpoint },
          db.tableName,
        ),
        id,
        token: await cognitoAccessToken({ scope: operation.scope }),
      });

      expect(report.results.filter((result) => result.problems.length > 0)).toEqual([]);
      expect(report.skipped).toEqual([]);
      expect(report.passed).toBe(true);
      expect(await db.getItem(db.tableName, id)).toBeUndefined();
    });

    /** The client's token with every scope it may ask for but this operation's. */
    const withoutItsScope = () => ({
      scope: clientScopes.filter((scope) => scope !== operation.scope).join(' '),
    });

    it.each([
      ['no token', 401, undefined],
      ["another app client's token", 401, () => ({ client_id: 'otherclient0id000000000000' })],
      ['an ID token of the pool', 401, () => ({ token_use: 'id', aud: clientId })],
      [`a token without ${operation.scope}`, 403, withoutItsScope],
    ] as const)(
      'answers its sample with %s: %i, and leaves the plant stored at that id as it was',
      async (_case, status, claims) => {
        const id = freshId();
        await storePlant(id);
        const stored = await db.getItem(db.tableName, id);
        const token = claims === undefined ? undefined : await cognitoAccessToken(claims());

        const { answer } = await ask(operation, sampleEvent(operation, id, token));

        expect(answer.statusCode).toBe(status);
        expect(JSON.parse(answer.body ?? '')).toMatchObject({ error: status });
        expect(await db.getItem(db.tableName, id)).toEqual(stored);
      },
    );

    it('writes one JSON log line per request, its outcome counted under its own function, and no token', async () => {
      const { env, lambda } = runningOf(operation);
      const service = env.AWS_LAMBDA_FUNCTION_NAME;
      const answered = await ask(
        operation,
        sampleEvent(operation, freshId(), await cognitoAccessToken()),
      );
      const unauthorized = await ask(operation, sampleEvent(operation, freshId(), undefined));

      const answeredLine = await requestLogLine(operation, answered.result);
      expect(answeredLine).toMatchObject({ status: checksOf(operation).sample.status, clientId });
      const outcome = String(answeredLine.outcome);
      expect(Object.keys(operation.outcomes)).toContain(outcome);
      const counter = operation.outcomes[outcome as keyof typeof operation.outcomes];
      const metrics = extractedMetrics(answeredLine);
      expect(metrics).toContainEqual({
        namespace: 'PlantStore',
        dimensions: { Service: service },
        name: counter,
        unit: 'Count',
        value: 1,
      });
      for (const metric of metrics) expect(metric.dimensions).toEqual({ Service: service });

      const unauthorizedLine = await requestLogLine(operation, unauthorized.result);
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
  },
);

describe('plants from one asset to another, with a Cognito client-credentials token', () => {
  it('creates a plant (200), replays it (200) and refuses a conflicting one (409)', async () => {
    const create = byName('create-plant');
    const id = freshId();
    const token = await cognitoAccessToken();
    const fern = JSON.stringify({ id: Number(id), name: 'Fern', tag: 'indoor' });

    const created = await ask(create, fakeEvent({ token, body: fern }));
    const replayed = await ask(create, fakeEvent({ token, body: fern }));
    const conflict = await ask(
      create,
      fakeEvent({ token, body: JSON.stringify({ id: Number(id), name: 'Moss' }) }),
    );

    const plant = (answer: APIGatewayProxyStructuredResultV2) =>
      JSON.parse(answer.body ?? 'null') as unknown;
    expect([created.answer.statusCode, plant(created.answer)]).toEqual([
      200,
      { name: 'Fern', tag: 'indoor' },
    ]);
    expect([replayed.answer.statusCode, plant(replayed.answer)]).toEqual([
      200,
      { name: 'Fern', tag: 'indoor' },
    ]);
    expect(conflict.answer.statusCode).toBe(409);
    expect(await db.getItem(db.tableName, id)).toEqual({
      id: { N: id },
      name: { S: 'Fern' },
      tag: { S: 'indoor' },
    });
  });

  it('lists a plant the create asset stored, its exact int64 id a JSON number, on one of the pages', async () => {
    const list = byName('list-plants');
    const token = await cognitoAccessToken();
    const id = '9007199254740993';
    await storePlant(id, { name: 'Fern', tag: 'indoor' });

    const bodies: string[] = [];
    let query: string | undefined = 'limit=2';
    while (query !== undefined) {
      const { answer: page } = await ask(list, fakeListEvent(query, { token }));
      expect(page.statusCode).toBe(200);
      bodies.push(page.body ?? '');
      const link = String(page.headers?.link ?? '');
      query = /^<\/plants\?([^>]+)>; rel="next"$/.exec(link)?.[1];
    }

    const found = bodies.filter((body) =>
      body.includes(`{"id":${id},"name":"Fern","tag":"indoor"}`),
    );
    expect(found).toHaveLength(1);
    for (const body of bodies) expect(Array.isArray(JSON.parse(body))).toBe(true);
  });

  it('deletes a plant the create asset stored (204, no body), and again (204), leaving no item', async () => {
    const remove = byName('delete-plant');
    const token = await cognitoAccessToken();
    const id = freshId();
    await storePlant(id, { name: 'Moss' });
    expect(await db.getItem(db.tableName, id)).toBeDefined();

    const first = await ask(remove, fakeDeleteEvent(id, { token }));
    const again = await ask(remove, fakeDeleteEvent(id, { token }));

    for (const { answer } of [first, again]) {
      expect(answer.statusCode).toBe(204);
      expect(answer.body ?? '').toBe('');
    }
    expect(await db.getItem(db.tableName, id)).toBeUndefined();
  });
});
