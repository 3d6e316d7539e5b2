import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { toEventV2 } from '../dev-server/http-gateway.ts';
import { requestPath } from '../functions/operation.ts';
import { checksOf, type OperationName, operationNamed, routeKey } from '../functions/operations.ts';
import { operationConstructId } from '../infra/constructs/operation-function.ts';
import { type BuiltBundle, bundleName, comparedRoles, roleLabel } from './bundles.ts';
import { interleaved, loadAverage, log, median, pad, round, spread } from './lab.ts';
import { findLambdaFunction, readCloudAssembly, synthesizeApp } from './support/cloud-assembly.ts';
import { type HttpsEndpoint, startHttpsEndpoint } from './support/https-endpoint.ts';
import { deployedEnvironment } from './support/lambda-environment.ts';
import { type InvokeResult, startLambdaProcess } from './support/lambda-process.ts';
import { createThrowawayCa } from './support/throwaway-ca.ts';

type ColdRequestSample = ReturnType<typeof sampleOf>;
/** A sample's fields as medians over the rounds, and how many rounds there were. */
type VariantFigures = { readonly [K in keyof ColdRequestSample | 'runs']: number };
export type ColdRequestFigures = ReturnType<typeof summarize>;

type ColdRequestOptions = {
  readonly rounds: number;
  readonly rtts: readonly number[];
  readonly operations: readonly OperationName[];
  /** FLOOR, and every LIMIT and BARE by `bundleName`. */
  readonly bundles: readonly BuiltBundle[];
  readonly swaps: readonly BuiltBundle[];
  /** Mints a token with every scope, claiming the issuer it is given. */
  readonly issuer: { readonly url: string; mint(issuer: string): Promise<string> };
  /** dynalite, plain HTTP on loopback. */
  readonly store: { readonly endpoint: string; readonly tableName: string };
  /** A cloud assembly `cdk synth` wrote, read instead of synthesizing one. */
  readonly cdkOut?: string | undefined;
  /** `--cpu-prof` of every shipped and LIMIT process, into `<operation>-<variant>/` here. */
  readonly cpuProfileDir?: string | undefined;
};

type Runner = ReturnType<typeof findLambdaFunction> & { readonly operation: OperationName };

/** The functions' audience: the Cognito client id the tokens carry. */
export const clientId = 'test-client';

/** The rotation's name of one operation's variant; FLOOR and swaps have a name of their own. */
const variantId = (operation: OperationName, variant: string) => `${operation}:${variant}`;

export async function measureColdRequests(options: ColdRequestOptions) {
  const { cpuProfileDir } = options;
  log('cold request: synthesizing the app as `cdk synth` does ...');
  // Validation changes neither templates nor assets, and is the slowest part of a synth.
  const assembly = options.cdkOut
    ? await readCloudAssembly(options.cdkOut)
    : await synthesizeApp({ validate: false });
  const ca = await createThrowawayCa();
  // Each reference runs as its operation's function would: that function's template and scope.
  const runners = new Map<string, Runner>();
  const add = (id: string, operation: OperationName, bundle?: BuiltBundle) => {
    const cdkPath = `${operationConstructId({ name: operation })}/Function/Resource`;
    const spec = findLambdaFunction(assembly, cdkPath);
    const assetDir = bundle ? path.dirname(bundle.file) : spec.assetDir;
    runners.set(id, { ...spec, assetDir, operation });
  };
  const bundle = (name: string) => options.bundles.find((each) => each.name === name);
  add('floor', 'create-plant', bundle('floor'));
  for (const operation of options.operations) {
    for (const role of ['limit', 'bare'] as const) {
      const reference = bundle(bundleName(role, operation));
      if (reference) add(variantId(operation, role), operation, reference);
    }
    add(variantId(operation, 'shipped'), operation);
  }
  for (const swap of options.swaps) add(`swap:${swap.name}`, 'create-plant', swap);
  let nextId = BigInt(Date.now()) * 1000n + 500n;

  const figures = [];
  try {
    for (const rttMs of options.rtts) {
      const endpoints: HttpsEndpoint[] = [];
      try {
        for (const upstream of [options.issuer.url, options.store.endpoint])
          endpoints.push(await startHttpsEndpoint(new URL(upstream), ca, { rttMs }));
        const [issuer, store] = endpoints.map(({ url }) => url) as [URL, URL];
        const deployment = {
          region: 'eu-west-1',
          accountId: '123456789012',
          resources: {
            'AWS::DynamoDB::Table': { ref: options.store.tableName },
            'AWS::Cognito::UserPool': { attributes: { ProviderURL: issuer.origin } },
            'AWS::Cognito::UserPoolClient': { ref: clientId },
          },
        };
        const token = await options.issuer.mint(issuer.origin);

        const once = async (name: string): Promise<ColdRequestSample> => {
          const { operation, ...fn } = runners.get(name) as Runner;
          const env = deployedEnvironment({ fn, deployment, ca, dynamodbEndpoint: store });
          const profileDir = cpuProfileDir && path.join(cpuProfileDir, name.replace(':', '-'));
          const execArgv =
            profileDir && /:(shipped|limit)$/.test(name)
              ? ['--cpu-prof', '--cpu-prof-interval=100', `--cpu-prof-dir=${profileDir}`]
              : [];
          const lambda = await startLambdaProcess({ env, execArgv });
          try {
            const result = await lambda.invoke(sampleEvent(operation, String(nextId++), token));
            const status = (result.result as { statusCode?: number } | undefined)?.statusCode;
            const expected = name === 'floor' ? 200 : checksOf({ name: operation }).sample.status;
            if (!result.ok || status !== expected) {
              throw new Error(
                `${name} answered ${status ?? result.error}: ${JSON.stringify(result.result)}\n${lambda.output()}`,
              );
            }
            return sampleOf(lambda.initMs, result, issuer, store);
          } finally {
            await lambda.close();
          }
        };

        const rotation = [...runners.keys()];
        // One unmeasured round warms the fixtures' own side (their first TLS handshakes).
        for (const name of rotation) await once(name);
        log(
          `cold request, RTT ${rttMs} ms: ${options.rounds} rounds of ${rotation.join(', ')} ...`,
        );
        figures.push(summarize(rttMs, options, await interleaved(options.rounds, rotation, once)));
      } finally {
        for (const endpoint of endpoints) await endpoint.close();
      }
    }
    return figures;
  } finally {
    if (!options.cdkOut) await rm(assembly.outdir, { recursive: true, force: true });
    await rm(ca.dir, { recursive: true, force: true });
  }
}

/** The operation's sample request as API Gateway hands it over, built by the dev server's gateway. */
export function sampleEvent(name: OperationName, id: string, token: string) {
  const operation = operationNamed(name);
  const request = checksOf(operation).sample.request(id);
  const body = Buffer.from(request.body ?? '');
  const rawHeaders = [
    ...['host', 'api.plants.example.com', 'authorization', `Bearer ${token}`],
    ...(body.length === 0 ? [] : ['content-type', 'application/json']),
    ...(body.length === 0 ? [] : ['content-length', String(body.length)]),
    ...Object.entries(request.headers ?? {}).flat(),
  ];
  const url = requestPath(operation, request);
  return toEventV2({ method: operation.method, url, httpVersion: '1.1', rawHeaders }, body, {
    requestId: randomUUID(),
    routeKey: routeKey(operation),
    pathParameters: request.pathParameters ?? {},
    receivedAt: new Date(),
    sourceIp: '127.0.0.1',
  });
}

/** Where the first invoke's time went, from the runtime's diagnostics_channel traces. */
function sampleOf(initMs: number, result: InvokeResult, keySetUrl: URL, dynamoDbUrl: URL) {
  const { socketTraces, requestTraces, startedAt, finishedAt } = result;
  const span = ({ port }: URL) => {
    const sockets = socketTraces.filter((socket) => socket.port === Number(port));
    const socketIds = new Set(sockets.map((socket) => socket.id));
    const requests = requestTraces.filter(({ socketId }) => socketIds.has(socketId ?? -1));
    if (requests.length === 0) return { total: 0, inInvoke: 0 };
    const begin = Math.min(
      ...sockets.map((socket) => socket.createdAt),
      ...requests.map((request) => request.startedAt),
    );
    const end = Math.max(...requests.map((request) => request.finishedAt ?? finishedAt));
    return { total: end - begin, inInvoke: Math.max(0, end - Math.max(begin, startedAt)) };
  };
  const summed = (part: (socket: (typeof socketTraces)[number]) => number) =>
    socketTraces.reduce((sum, socket) => sum + part(socket), 0);
  const keySet = span(keySetUrl);
  const dynamoDb = span(dynamoDbUrl);
  return {
    initMs,
    firstInvokeMs: finishedAt - startedAt,
    totalMs: finishedAt,
    cpuMs: result.cpuMs,
    connectMs: summed(({ createdAt, connectedAt = createdAt }) => connectedAt - createdAt),
    tlsMs: summed(({ connectedAt, secureAt }) =>
      secureAt !== undefined && connectedAt !== undefined ? secureAt - connectedAt : 0,
    ),
    connections: socketTraces.length,
    keySetMs: keySet.total,
    keySetInInvokeMs: keySet.inInvoke,
    dynamoDbMs: dynamoDb.total,
    dynamoDbInInvokeMs: dynamoDb.inInvoke,
  };
}

/** Medians per variant; a ratio is the median of per-round ratios of totals. */
function summarize(
  rttMs: number,
  options: ColdRequestOptions,
  samples: ReadonlyMap<string, ColdRequestSample[]>,
) {
  const of = (name: string) => samples.get(name) ?? [];
  const medianOf = (name: string): VariantFigures | undefined => {
    const list = samples.get(name);
    if (!list) return undefined;
    const keys = Object.keys(list[0] ?? {}) as (keyof ColdRequestSample)[];
    const medians = keys.map((key) => [key, round(median(list.map((sample) => sample[key])), 1)]);
    return { runs: list.length, ...Object.fromEntries(medians) } as VariantFigures;
  };
  const perRound = (name: string, reference: string, compare: (a: number, b: number) => number) =>
    of(name).map((sample, k) => compare(sample.totalMs, of(reference)[k]?.totalMs ?? Number.NaN));
  const ratios = (name: string, reference: string) => perRound(name, reference, (a, b) => a / b);
  const pairRatio = (name: string, reference: string) =>
    samples.has(reference) ? round(median(ratios(name, reference))) : undefined;
  const create = (role: string) => variantId('create-plant', role);
  return {
    rttMs,
    rounds: options.rounds,
    floor: medianOf('floor'),
    operations: options.operations.map((operation) => {
      const id = (role: string) => variantId(operation, role);
      const [limit, bare, shipped] = [id('limit'), id('bare'), id('shipped')];
      return {
        operation,
        variants: { limit: medianOf(limit), bare: medianOf(bare), shipped: medianOf(shipped) },
        shippedOverLimit: pairRatio(shipped, limit),
        limitOverBare: pairRatio(limit, bare),
        shippedOverBare: pairRatio(shipped, bare),
        shippedOverFloor: pairRatio(shipped, 'floor'),
      };
    }),
    swaps: options.swaps.map(({ name }) => {
      const id = `swap:${name}`;
      const overShipped = ratios(id, create('shipped'));
      const minus = perRound(id, create('shipped'), (a, b) => a - b);
      return {
        name,
        figures: medianOf(id),
        overShipped: {
          ...spread(overShipped, 3),
          min: round(Math.min(...overShipped), 3),
          max: round(Math.max(...overShipped), 3),
        },
        minusShippedMs: spread(minus, 1),
        overLimit: pairRatio(id, create('limit')),
        overBare: pairRatio(id, create('bare')),
      };
    }),
  };
}

/** FLOOR, then each operation's variants, as the table and the chart list them; x LIMIT for each. */
export function variantRows(figure: ColdRequestFigures) {
  return [
    { label: roleLabel.floor, measured: figure.floor, overLimit: '', shipped: false },
    ...figure.operations.flatMap((op) =>
      comparedRoles.map((role) => ({
        label: `${op.operation} ${roleLabel[role]}`,
        measured: op.variants[role],
        overLimit: {
          limit: '1.00',
          bare: (1 / (op.limitOverBare ?? Number.NaN)).toFixed(2),
          shipped: op.shippedOverLimit?.toFixed(2) ?? '',
        }[role],
        shipped: role === 'shipped',
      })),
    ),
  ];
}

/** As `npm run bench` prints them: ratios to LIMIT and BARE, then where the time went. */
export function coldRequestTable(figures: readonly ColdRequestFigures[]): string[] {
  const ms = (value: number | undefined) => (value === undefined ? '' : `${value.toFixed(0)} ms`);
  const ratio = (value: number | undefined, width: number) =>
    value === undefined ? '' : pad(value.toFixed(2), width);
  const lines = [
    `${'cold request over TLS'.padEnd(16)}${pad('RTT', 5)}${pad('FLOOR', 8)}${pad('LIMIT', 8)}${pad('BARE', 8)}${pad('shipped', 9)}${pad('shipped/LIMIT', 15)}${pad('LIMIT/BARE', 12)}${pad('shipped/BARE', 14)}`,
    ...figures.flatMap(({ rttMs, floor, operations }) =>
      operations.map((op) => {
        const { limit, bare, shipped } = op.variants;
        const references =
          limit === undefined || bare === undefined
            ? pad('no reference', 16)
            : `${pad(ms(limit.totalMs), 8)}${pad(ms(bare.totalMs), 8)}`;
        return `${op.operation.padEnd(16)}${pad(`${rttMs} ms`, 5)}${pad(ms(floor?.totalMs), 8)}${references}${pad(ms(shipped?.totalMs), 9)}${ratio(op.shippedOverLimit, 15)}${ratio(op.limitOverBare, 12)}${ratio(op.shippedOverBare, 14)}`.trimEnd();
      }),
    ),
    `  totals (process start to the answer), medians of ${figures[0]?.rounds ?? 0} interleaved rounds per RTT, fresh process each, asset from cdk synth; ratios = medians of per-round ratios; load ${loadAverage()}`,
    '',
    `${'where the time went'.padEnd(32)}${pad('RTT', 5)}${pad('init', 8)}${pad('1st inv', 9)}${pad('total', 8)}${pad('CPU', 8)}${pad('x LIMIT', 9)}${pad('conns', 7)}${pad('TLS', 7)}${pad('keys', 7)}${pad('(in inv)', 9)}${pad('DDB', 7)}${pad('(in inv)', 9)}`,
  ];
  const row = (label: string, rttMs: number, v: VariantFigures | undefined, xLimit: string) =>
    v === undefined
      ? `${label.padEnd(32)}${pad(rttMs, 5)}  no reference`
      : `${label.padEnd(32)}${pad(rttMs, 5)}${pad(v.initMs.toFixed(1), 8)}${pad(v.firstInvokeMs.toFixed(1), 9)}${pad(v.totalMs.toFixed(1), 8)}${pad(v.cpuMs.toFixed(1), 8)}${pad(xLimit, 9)}${pad(v.connections, 7)}${pad(v.tlsMs.toFixed(1), 7)}${pad(v.keySetMs.toFixed(1), 7)}${pad(v.keySetInInvokeMs.toFixed(1), 9)}${pad(v.dynamoDbMs.toFixed(1), 7)}${pad(v.dynamoDbInInvokeMs.toFixed(1), 9)}`;
  for (const figure of figures) {
    for (const { label, measured, overLimit } of variantRows(figure)) {
      lines.push(row(label, figure.rttMs, measured, overLimit));
    }
    for (const swap of figure.swaps) {
      const xLimit = swap.overLimit?.toFixed(2) ?? '';
      lines.push(row(`swap: ${swap.name}`, figure.rttMs, swap.figures, xLimit));
    }
  }
  for (const { rttMs, swaps } of figures) {
    for (const { name, overShipped: over, minusShippedMs: minus } of swaps) {
      lines.push(
        `  RTT ${rttMs} ms, ${name} / shipped, per round: median ${over.median.toFixed(3)} (p25 ${over.p25.toFixed(3)}, p75 ${over.p75.toFixed(3)}; min ${over.min.toFixed(3)}, max ${over.max.toFixed(3)}); minus shipped: ${minus.median.toFixed(1)} ms (p25 ${minus.p25.toFixed(1)}, p75 ${minus.p75.toFixed(1)})`,
      );
    }
  }
  lines.push(
    "  x LIMIT = median of per-round ratios of totals (BARE's is 1 / LIMIT/BARE); CPU = the main thread's CPU time to the answer (user + system); TLS = handshakes summed; keys / DDB = first socket or request to last answer, (in inv) = the part inside the first invoke",
  );
  return lines;
}
