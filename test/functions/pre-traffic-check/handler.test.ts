import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  findLambdaFunction,
  type LambdaFunctionSpec,
} from '../../../bench/support/cloud-assembly.ts';
import type { Deployment } from '../../../bench/support/cloudformation.ts';
import { type HttpsEndpoint, startHttpsEndpoint } from '../../../bench/support/https-endpoint.ts';
import {
  deployedEnvironment,
  lambdaEnvironment,
} from '../../../bench/support/lambda-environment.ts';
import {
  type InvokeResult,
  type LambdaProcess,
  startLambdaProcess,
} from '../../../bench/support/lambda-process.ts';
import { createThrowawayCa, type ThrowawayCa } from '../../../bench/support/throwaway-ca.ts';
import { localAwsCredentials } from '../../../dev-server/dynamodb.ts';
import { checkPlant } from '../../../functions/checks/check.ts';
import { type CheckStep, checkStepsOf } from '../../../functions/checks/runner.ts';
import {
  checksOf,
  type Operation,
  operationNamed,
  operations,
  routeKey,
} from '../../../functions/operations.ts';
import { projectRoot } from '../../../infra/bundling/bundling.ts';
import { operationConstructId } from '../../../infra/constructs/operation-function.ts';
import { type CognitoPool, startCognitoPool } from '../../support/cognito-pool.ts';
import { type DynaliteServer, startDynalite } from '../../support/dynalite-server.ts';
import { type AwsCall, type FakeAws, startFakeAws } from '../../support/fake-aws.ts';
import { sharedAssembly, sharedAssemblyTimeoutMs } from '../../support/shared-assembly.ts';

/** An operation's cases, as the runner sends them: its steps bar the fixture's. */
const casesOf = (operation: Operation) =>
  checkStepsOf(operation, checksOf(operation)).flatMap((step: CheckStep) =>
    'fixture' in step ? [] : [step],
  );
const createCases = casesOf(operationNamed('create-plant'));
/** The plant as the table holds it, once a create stored it. */
const storedCheckPlant = (id: string) => ({
  id: { N: id },
  name: { S: checkPlant.name },
  tag: { S: checkPlant.tag },
});

/**
 * The BeforeAllowTraffic hook, bundled as its construct ships it (`@aws-sdk/*` left to the
 * runtime) and run in a Lambda-like process, against a fake Lambda, CodeDeploy and Cognito on
 * loopback, and a real table (dynalite, over TLS) where its fixture keeps the check plant. The
 * fake Lambda's Invoke runs the assets `cdk synth` writes, each in a Lambda-like process with the
 * template's environment (as test/infra/shipped-asset.test.ts runs them): every operation's asset
 * as a good version, and the create-plant asset once more as a version whose table does not
 * exist, which answers 500. Its tokens come from a Cognito-like token endpoint over TLS.
 */

const region = 'eu-west-1';
const accountId = '123456789012';
const userPoolId = `${region}_Pl4ntTest`;
const client = { id: '4p1antst0reclient0id0abcde', secret: randomUUID() };
const functionArn = `arn:aws:lambda:${region}:${accountId}:function:PlantStore-test-CreatePlant`;
const goodVersion = `${functionArn}:7`;
const brokenVersion = `${functionArn}:8`;
const crashingVersion = `${functionArn}:9`;
/** Stores the plant of the first create it is asked, then crashes on every request with a token. */
const crashingAfterCreateVersion = `${functionArn}:10`;
const missingVersion = `${functionArn}:99`;
/** Each operation's good version, run from its asset in cdk.out. */
const operationVersion = (name: string) =>
  `arn:aws:lambda:${region}:${accountId}:function:PlantStore-test-${name}:5`;
/** A version of another operation's function that refuses every request without a token. */
const refusingVersion = (name: string) =>
  `arn:aws:lambda:${region}:${accountId}:function:PlantStore-test-${name}:3`;
const refusal = {
  statusCode: 401,
  headers: {
    'content-type': 'application/json',
    'www-authenticate': 'Bearer realm="plant-store", error="invalid_request"',
  },
  body: '{"error":401,"message":"Missing bearer token"}',
};

let ca: ThrowawayCa;
let db: DynaliteServer;
/** Reads the table past the API, to count what a run left in it. */
let store: DynamoDBClient;
let pool: CognitoPool;
let storeEndpoint: HttpsEndpoint;
let fakeAws: FakeAws;
let broken: LambdaProcess;
/** Each operation's good version, by its name. */
const good = new Map<string, LambdaProcess>();
let hookSpec: LambdaFunctionSpec;
const temporary: string[] = [];
/** The bodies of the creates the version that crashes after its create has answered. */
const createdBefore = new Set<string>();
/** What the table held under the run's id when that version crashed. */
const atCrash: unknown[] = [];

beforeAll(async () => {
  ca = await createThrowawayCa();
  temporary.push(ca.dir);
  // Only the assets and the templates are read: CloudFormation validation would change neither.
  const [assembly, hookDir] = await Promise.all([sharedAssembly(), bundleHook(), openStore()]);
  temporary.push(path.dirname(hookDir));
  pool = await startCognitoPool({ userPoolId, client, ca });

  const fn = findLambdaFunction(assembly, 'CreatePlant/Function/Resource');
  const deployment: Deployment = {
    region,
    accountId,
    resources: {
      'AWS::DynamoDB::Table': { ref: db.tableName },
      'AWS::Cognito::UserPool': { ref: userPoolId, attributes: { ProviderURL: pool.providerUrl } },
      'AWS::Cognito::UserPoolClient': { ref: client.id },
    },
  };
  const envOf = (operation: Operation) =>
    deployedEnvironment({
      fn: findLambdaFunction(assembly, `${operationConstructId(operation)}/Function/Resource`),
      deployment,
      ca,
      dynamodbEndpoint: storeEndpoint.url,
    });
  const started = await Promise.all(
    operations.map(async (operation) => {
      const env = envOf(operation);
      return [operation.name, await startLambdaProcess({ env })] as const;
    }),
  );
  for (const [name, lambda] of started) good.set(name, lambda);
  const create = operationNamed('create-plant');
  broken = await startLambdaProcess({
    env: { ...envOf(create), PLANTS_TABLE_NAME: 'plants-never-created' },
  });
  const goodCreate = (event: unknown) => goodOf(create).invoke(event);

  fakeAws = await startFakeAws({
    region,
    functions: {
      [goodVersion]: goodCreate,
      [brokenVersion]: (event) => broken.invoke(event),
      [crashingVersion]: async () => ({ ok: false, error: 'Error: the handler threw\n    at x' }),
      [crashingAfterCreateVersion]: async (event) => {
        const { headers, body = '' } = event as APIGatewayProxyEventV2;
        if (!('authorization' in headers) || !createdBefore.has(body)) {
          createdBefore.add(body);
          return goodCreate(event);
        }
        const id = /"id":(-?\d+)/.exec(body)?.[1] ?? '';
        atCrash.push(await db.getItem(db.tableName, id));
        return { ok: false, error: 'Error: the handler threw after the create\n    at x' };
      },
      ...Object.fromEntries(
        operations.flatMap((operation) => [
          [operationVersion(operation.name), (event: unknown) => goodOf(operation).invoke(event)],
          [refusingVersion(operation.name), async () => ({ ok: true, result: refusal })],
        ]),
      ),
    },
    userPoolClients: [{ userPoolId, clientId: client.id, clientSecret: client.secret }],
  });
  // The hook's own function as Lambda would run it; only its folder differs from the stack's.
  hookSpec = {
    ...fn,
    logicalId: 'PreTrafficCheck',
    cdkPath: `${fn.stackName}/PreTrafficCheck`,
    assetDir: hookDir,
    memorySize: 256,
    timeoutSeconds: 180,
    environment: {},
  };
}, sharedAssemblyTimeoutMs);

afterAll(async () => {
  await Promise.all([broken?.close(), ...[...good.values()].map((each) => each.close())]);
  await Promise.all([fakeAws?.close(), pool?.close(), storeEndpoint?.close()]);
  store?.destroy();
  await db?.close();
  await Promise.all(temporary.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function openStore() {
  db = await startDynalite();
  storeEndpoint = await startHttpsEndpoint(new URL(db.endpoint), ca);
  const { region: storeRegion, ...credentials } = localAwsCredentials;
  store = new DynamoDBClient({ region: storeRegion, endpoint: db.endpoint, credentials });
}

function goodOf(operation: Pick<Operation, 'name'>): LambdaProcess {
  const lambda = good.get(operation.name);
  if (lambda === undefined) throw new Error(`no good version of ${operation.name}`);
  return lambda;
}

/** How many plants the table holds: a run, passed or failed, leaves it as it found it (empty). */
async function plantsLeft(): Promise<number> {
  const { Count = 0 } = await store.send(
    new ScanCommand({ TableName: db.tableName, Select: 'COUNT', ConsistentRead: true }),
  );
  return Count;
}

/**
 * The hook's bundle as its construct builds it: ESM for Node 24, the AWS SDK left out. The
 * runtime provides the SDK on Lambda; here a `node_modules` beside the asset folder does, found
 * by the same module resolution.
 */
async function bundleHook(): Promise<string> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'plant-store-hook-'));
  const assetDir = path.join(root, 'asset');
  await mkdir(assetDir);
  await symlink(path.join(projectRoot, 'node_modules'), path.join(root, 'node_modules'), 'dir');
  await build({
    entryPoints: [path.join(projectRoot, 'functions', 'pre-traffic-check', 'handler.ts')],
    outfile: path.join(assetDir, 'index.mjs'),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    external: ['@aws-sdk/*'],
    logLevel: 'warning',
  });
  return assetDir;
}

/** The pool's variables and the table's, as the construct sets them; the token URL is the pool's. */
const tokenVariables = () => ({
  TOKEN_URL: pool.tokenUrl,
  USER_POOL_ID: userPoolId,
  CLIENT_ID: client.id,
  TOKEN_SCOPE: 'plants/write',
  PLANTS_TABLE_NAME: db.tableName,
});

type HookRun = {
  readonly result: InvokeResult;
  readonly executionId: string;
  /** The AWS calls the run made, in order. */
  readonly calls: readonly AwsCall[];
  /** What the run reported to CodeDeploy. */
  readonly reported: readonly string[];
  /** The run's JSON log lines. */
  readonly logs: readonly Record<string, unknown>[];
};

/** Runs the hook once, in a process of its own, as CodeDeploy's invoke would. */
async function runHook(
  variables: Record<string, string>,
  { timeoutMs = 60_000, env = {} }: { timeoutMs?: number; env?: Record<string, string> } = {},
): Promise<HookRun> {
  const hook = await startLambdaProcess({
    env: {
      ...lambdaEnvironment({
        fn: hookSpec,
        variables,
        region,
        functionName: 'PlantStore-test-PreTrafficCheck',
      }),
      ...fakeAws.env,
      AWS_ENDPOINT_URL_DYNAMODB: storeEndpoint.url.href,
      NODE_EXTRA_CA_CERTS: ca.caFile,
      ...env,
    },
  });
  const before = fakeAws.calls().length;
  const executionId = randomUUID();
  let result: InvokeResult;
  try {
    result = await hook.invoke(
      { DeploymentId: 'd-PRETRAFFIC', LifecycleEventHookExecutionId: executionId },
      { timeoutMs },
    );
  } finally {
    // Its log line may still be on its way after the answer: the output is whole once it exits.
    await hook.close();
  }
  return {
    result,
    executionId,
    calls: fakeAws.calls().slice(before),
    reported: fakeAws
      .reportedStatuses()
      .filter((report) => report.lifecycleEventHookExecutionId === executionId)
      .map((report) => {
        expect(report.deploymentId).toBe('d-PRETRAFFIC');
        return report.status;
      }),
    logs: hook
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

const invokes = (run: HookRun) => run.calls.filter((call) => call.service === 'lambda');
const verdict = (run: HookRun) => run.logs.find((line) => line.message === 'pre-traffic check');

/** The report is the run's last call: it comes after every check. */
function expectReportedLast(run: HookRun, status: string): void {
  expect(run.reported).toEqual([status]);
  expect(run.calls.at(-1)).toMatchObject({
    service: 'codedeploy',
    operation: 'PutLifecycleEventHookExecutionStatus',
    input: { lifecycleEventHookExecutionId: run.executionId, status },
  });
}

describe('the pre-traffic hook, with the pool configured', () => {
  it('passes a good version: 401 without a token, 200 create, 200 replay, 400 for a bad body, invoking only that version, then deletes the plant from the table', async () => {
    const tokensBefore = pool.tokenRequests();

    const run = await runHook({
      ...tokenVariables(),
      TARGET_FUNCTION_ARN: goodVersion,
      OPERATION: 'create-plant',
    });

    expect(run.result.error).toBeUndefined();
    expectReportedLast(run, 'Succeeded');
    expect(run.calls[0]).toMatchObject({
      service: 'cognito-idp',
      operation: 'DescribeUserPoolClient',
      input: { UserPoolId: userPoolId, ClientId: client.id },
    });
    expect(pool.tokenRequests()).toBe(tokensBefore + 1);
    const calls = invokes(run);
    expect(calls.map((call) => call.functionName)).toEqual(createCases.map(() => goodVersion));
    const events = calls.map((call) => call.input as APIGatewayProxyEventV2);
    expect(events.map((event) => [event.version, event.routeKey])).toEqual(
      createCases.map(() => ['2.0', 'POST /plants']),
    );
    expect(events.map((event) => 'authorization' in event.headers)).toEqual(
      createCases.map((testCase) => !testCase.withoutToken),
    );
    const id = /"id":(-?\d+)/.exec(events[1]?.body ?? '')?.[1] ?? '';
    expect(await plantsLeft()).toBe(0);
    expect(verdict(run)).toMatchObject({
      level: 'info',
      status: 'Succeeded',
      target: goodVersion,
      plantId: id,
      cases: createCases.map((testCase) => ({
        name: testCase.name,
        status: testCase.expected.status,
        problems: [],
      })),
    });
    expect(JSON.stringify(run.logs)).not.toContain(client.secret);
  });

  it('uses a fresh plant id on every run', async () => {
    const variables = {
      ...tokenVariables(),
      TARGET_FUNCTION_ARN: goodVersion,
      OPERATION: 'create-plant',
    };

    const [first, second] = [await runHook(variables), await runHook(variables)];

    expect(first.reported).toEqual(['Succeeded']);
    expect(second.reported).toEqual(['Succeeded']);
    expect(verdict(first)?.plantId).not.toBe(verdict(second)?.plantId);
    expect(await plantsLeft()).toBe(0);
  });

  it('fails a version that answers 500 (its table does not exist), sending it every case', async () => {
    const run = await runHook({
      ...tokenVariables(),
      TARGET_FUNCTION_ARN: brokenVersion,
      OPERATION: 'create-plant',
    });

    expect(run.result.error).toBeUndefined();
    expectReportedLast(run, 'Failed');
    expect(invokes(run).map((call) => call.functionName)).toEqual(
      createCases.map(() => brokenVersion),
    );
    const line = verdict(run);
    expect(line).toMatchObject({ level: 'error', status: 'Failed', target: brokenVersion });
    expect(line?.cases).toContainEqual({
      name: createCases[1]?.name,
      status: 500,
      problems: expect.arrayContaining(['status 500, expected 200']),
    });
    expect(await plantsLeft()).toBe(0);
  });

  it('still deletes its plant when the version crashes after storing it, and reports Failed', async () => {
    const crashesBefore = atCrash.length;

    const run = await runHook({
      ...tokenVariables(),
      TARGET_FUNCTION_ARN: crashingAfterCreateVersion,
      OPERATION: 'create-plant',
    });

    expect(run.result.error).toBeUndefined();
    expectReportedLast(run, 'Failed');
    // The 401, the create, the replay that crashed; no case after it is sent.
    const calls = invokes(run);
    expect(calls.map((call) => call.functionName)).toEqual([
      crashingAfterCreateVersion,
      crashingAfterCreateVersion,
      crashingAfterCreateVersion,
    ]);
    const created = (calls[1]?.input as APIGatewayProxyEventV2 | undefined)?.body ?? '';
    const id = /"id":(-?\d+)/.exec(created)?.[1] ?? '';
    // The plant was stored when the version crashed, and the fixture took it away after.
    expect(atCrash.slice(crashesBefore)).toEqual([storedCheckPlant(id)]);
    expect(await plantsLeft()).toBe(0);
    expect(verdict(run)).toMatchObject({
      status: 'Failed',
      error: [expect.stringMatching(/^VersionFailedError: .*:10 failed \(Unhandled\)/)],
    });
  });

  it('reports Failed when its fixture cannot keep the check plant: a table that does not exist', async () => {
    const run = await runHook({
      ...tokenVariables(),
      PLANTS_TABLE_NAME: 'plants-never-created',
      TARGET_FUNCTION_ARN: operationVersion('get-plant'),
      OPERATION: 'get-plant',
    });

    expect(run.result.error).toBeUndefined();
    expectReportedLast(run, 'Failed');
    // Only the case that needs no plant: the fixture failed before the first that does.
    expect(invokes(run)).toHaveLength(1);
    expect(verdict(run)).toMatchObject({
      status: 'Failed',
      cases: [{ status: 401, problems: [] }],
      error: [expect.stringMatching(/ResourceNotFoundException/)],
    });
  });

  it('reports Failed, within its own timeout, when the token endpoint never answers', async () => {
    const unavailable: Server = createServer((_request, response) => {
      response.writeHead(503).end();
    });
    await new Promise<void>((resolve) => unavailable.listen(0, '127.0.0.1', resolve));
    const port = (unavailable.address() as AddressInfo).port;
    const front = await startHttpsEndpoint(new URL(`http://127.0.0.1:${port}`), ca);
    // 10 s kept for the report and 40 s for the cases leave 5 s of retries.
    const timeoutMs = 55_000;
    try {
      const run = await runHook(
        {
          ...tokenVariables(),
          TOKEN_URL: `${front.url.origin}/oauth2/token`,
          TARGET_FUNCTION_ARN: goodVersion,
          OPERATION: 'create-plant',
        },
        { timeoutMs },
      );

      expect(run.result.error).toBeUndefined();
      expectReportedLast(run, 'Failed');
      expect(invokes(run)).toEqual([]);
      expect(
        run.logs.filter((line) => line.message === 'token endpoint not ready, retrying'),
      ).not.toHaveLength(0);
      expect(verdict(run)?.error).toEqual([
        expect.stringMatching(
          /^TokenUnavailableError: no token from .* after \d+ attempts: the token endpoint answered 503$/,
        ),
      ]);
    } finally {
      await front.close();
      await new Promise<void>((resolve) => unavailable.close(() => resolve()));
    }
  }, 60_000);
});

describe('the pre-traffic hook, without the pool (external issuer)', () => {
  it('runs only the case that needs no token, on no plant, passes on it, and says what it skipped', async () => {
    const tokensBefore = pool.tokenRequests();

    const run = await runHook({ TARGET_FUNCTION_ARN: goodVersion, OPERATION: 'create-plant' });

    expectReportedLast(run, 'Succeeded');
    expect(run.calls.map((call) => call.operation)).toEqual([
      'Invoke',
      'PutLifecycleEventHookExecutionStatus',
    ]);
    expect(pool.tokenRequests()).toBe(tokensBefore);
    expect(verdict(run)).toMatchObject({
      status: 'Succeeded',
      cases: [{ name: createCases[0]?.name, status: 401, problems: [] }],
      skipped: createCases.slice(1).map((testCase) => testCase.name),
      note: expect.stringMatching(/external issuer/),
    });
  });
});

describe('the pre-traffic hook of each operation', () => {
  it.each(operations)(
    'passes a good $name version with a token of its scope, invoking only that version as API Gateway routes $method $path, and leaves no plant',
    async (operation) => {
      const target = operationVersion(operation.name);

      const run = await runHook({
        ...tokenVariables(),
        TOKEN_SCOPE: operation.scope,
        TARGET_FUNCTION_ARN: target,
        OPERATION: operation.name,
      });

      expect(run.result.error).toBeUndefined();
      expectReportedLast(run, 'Succeeded');
      const line = verdict(run);
      expect(line).toMatchObject({
        status: 'Succeeded',
        operation: operation.name,
        cases: casesOf(operation).map((testCase) => ({
          name: testCase.name,
          status: testCase.expected.status,
          problems: [],
        })),
      });
      const events = invokes(run).map((call) => {
        expect(call.functionName).toBe(target);
        return call.input as APIGatewayProxyEventV2;
      });
      for (const event of events) {
        expect([event.routeKey, event.requestContext.http.method]).toEqual([
          routeKey(operation),
          operation.method,
        ]);
        const id = event.pathParameters?.id;
        expect(event.rawPath).toBe(operation.path.replace('{id}', String(id)));
      }
      // The cases are about the check plant, bar those about an id that is not one.
      if (operation.path.includes('{id}')) {
        expect(events.map((event) => event.pathParameters?.id)).toContain(line?.plantId);
      }
      expect(await plantsLeft()).toBe(0);
    },
  );

  it('fails a list version whose token lacks plants/read: the scope the hook asks for matters', async () => {
    const run = await runHook({
      ...tokenVariables(),
      TOKEN_SCOPE: 'plants/write',
      TARGET_FUNCTION_ARN: operationVersion('list-plants'),
      OPERATION: 'list-plants',
    });

    expectReportedLast(run, 'Failed');
    expect(verdict(run)?.cases).toContainEqual({
      name: casesOf(operationNamed('list-plants'))[1]?.name,
      status: 403,
      problems: expect.arrayContaining(['status 403, expected 200']),
    });
    expect(await plantsLeft()).toBe(0);
  });

  it("skips an operation's other cases once its version refuses the first", async () => {
    const operation = operationNamed('get-plant');
    const target = refusingVersion(operation.name);

    const run = await runHook({ TARGET_FUNCTION_ARN: target, OPERATION: operation.name });

    expectReportedLast(run, 'Succeeded');
    const [first, ...others] = casesOf(operation);
    expect(invokes(run)).toHaveLength(1);
    expect(verdict(run)).toMatchObject({
      status: 'Succeeded',
      operation: operation.name,
      cases: [{ name: first?.name, status: 401, problems: [] }],
      skipped: others.map((testCase) => testCase.name),
    });
  });
});

describe('the pre-traffic hook, when it cannot check', () => {
  it.each([
    ['the invoke throws (no such version)', missingVersion, /ResourceNotFoundException/],
    ['the version crashes', crashingVersion, /VersionFailedError: .* failed \(Unhandled\)/],
  ])('still reports Failed when %s', async (_case, target, error) => {
    const run = await runHook({ TARGET_FUNCTION_ARN: target, OPERATION: 'create-plant' });

    expect(run.result.error).toBeUndefined();
    expect(invokes(run)).toHaveLength(1);
    expectReportedLast(run, 'Failed');
    expect(verdict(run)).toMatchObject({ status: 'Failed', error: [expect.stringMatching(error)] });
  });

  it.each([
    ['TARGET_FUNCTION_ARN is missing', {}, /TARGET_FUNCTION_ARN is not set/],
    ['OPERATION is missing', { TARGET_FUNCTION_ARN: goodVersion }, /OPERATION is not set/],
    [
      'the target is an alias, not a version',
      { TARGET_FUNCTION_ARN: `${functionArn}:live` },
      /not a function version's ARN/,
    ],
    [
      'the pool is half configured',
      { TARGET_FUNCTION_ARN: goodVersion, OPERATION: 'create-plant', USER_POOL_ID: userPoolId },
      /USER_POOL_ID set without TOKEN_URL, CLIENT_ID, PLANTS_TABLE_NAME/,
    ],
  ])('still reports Failed when %s, naming the variable', async (_case, variables, error) => {
    const run = await runHook(variables);

    expect(run.result.error).toBeUndefined();
    expect(invokes(run)).toEqual([]);
    expectReportedLast(run, 'Failed');
    expect(verdict(run)).toMatchObject({
      error: [expect.stringMatching(new RegExp(`^ConfigError: .*${error.source}`))],
    });
  });

  it('fails the invoke, so that Lambda retries it, when the report cannot be made', async () => {
    const run = await runHook(
      { TARGET_FUNCTION_ARN: goodVersion, OPERATION: 'create-plant' },
      { env: { AWS_ENDPOINT_URL_CODEDEPLOY: 'http://127.0.0.1:9' } },
    );

    expect(run.reported).toEqual([]);
    expect(run.result.error).toMatch(/ECONNREFUSED|connect/);
    expect(verdict(run)).toMatchObject({ status: 'Succeeded' });
  });
});
