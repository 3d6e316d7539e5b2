import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { toEventV2 } from '../dev-server/http-gateway.ts';
import { requestPath, type SampleRequest } from '../functions/operation.ts';
import {
  checksOf,
  type Operation,
  type OperationName,
  operationNamed,
  routeKey,
} from '../functions/operations.ts';
import { operationConstructId } from '../infra/constructs/operation-function.ts';
import { type BuiltBundle, bundleName, hasReferences, roleLabel } from './bundles.ts';
import { interleaved, loadAverage, median, pad, percentile, round } from './lab.ts';
import {
  findLambdaFunction,
  type LambdaFunctionSpec,
  readCloudAssembly,
  synthesizeApp,
} from './support/cloud-assembly.ts';
import type { Deployment } from './support/cloudformation.ts';
import { type HttpsEndpoint, startHttpsEndpoint } from './support/https-endpoint.ts';
import { deployedEnvironment } from './support/lambda-environment.ts';
import { type InvokeResult, startLambdaProcess } from './support/lambda-process.ts';
import { createThrowawayCa } from './support/throwaway-ca.ts';

/** Each operation's variants for the cold request (docs/performance.md); FLOOR is one for all. */
type ColdRequestVariant = 'limit' | 'bare' | 'shipped';

/** Where one cold request's time went; the table's footer says what each figure is. */
export type ColdRequestSample = ReturnType<typeof sampleOf>;

/** A sample's fields as medians over the rounds, and how many rounds there were. */
export type VariantFigures = { readonly [K in keyof ColdRequestSample]: number } & {
  readonly runs: number;
};

/** Ratios are medians of per-round ratios of totals; an operation without references has none. */
export type OperationColdRequest = {
  readonly operation: OperationName;
  readonly variants: { readonly shipped: VariantFigures } & {
    readonly [variant in Exclude<ColdRequestVariant, 'shipped'>]?: VariantFigures;
  };
  readonly shippedOverLimit?: number;
  readonly limitOverBare?: number;
  readonly shippedOverBare?: number;
  readonly shippedOverFloor: number;
};

export type ColdRequestFigures = ReturnType<typeof summarize>;

export type ColdRequestOptions = {
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
  readonly log: (message: string) => void;
  /** A cloud assembly `cdk synth` wrote, read instead of synthesizing one. */
  readonly cdkOut?: string | undefined;
  /** `--cpu-prof` of every shipped and LIMIT process, into `<operation>-<variant>/` here. */
  readonly cpuProfileDir?: string | undefined;
};

/** The functions' audience: the Cognito client id the tokens carry. */
export const clientId = 'test-client';
export const coldRequestVariants: readonly ColdRequestVariant[] = ['limit', 'bare', 'shipped'];

/** The rotation's name of one operation's variant; FLOOR and swaps have a name of their own. */
const variantId = (operation: OperationName, variant: ColdRequestVariant) =>
  `${operation}:${variant}`;

export async function measureColdRequests(options: ColdRequestOptions) {
  const { log } = options;
  log('cold request: synthesizing the app as `cdk synth` does ...');
  // Validation changes neither templates nor assets, and is the slowest part of a synth.
  const assembly = options.cdkOut
    ? await readCloudAssembly(options.cdkOut)
    : await synthesizeApp({ validate: false });
  const ca = await createThrowawayCa();
  const shippedOf = (operation: OperationName) =>
    findLambdaFunction(assembly, `${operationConstructId({ name: operation })}/Function/Resource`);
  // Each reference runs as its operation's function would: that function's template and scope.
  const runners = new Map<string, { spec: LambdaFunctionSpec; operation: OperationName }>();
  const add = (id: string, operation: OperationName, bundle?: BuiltBundle) => {
    const spec = shippedOf(operation);
    runners.set(id, {
      spec: bundle ? { ...spec, assetDir: path.dirname(bundle.file) } : spec,
      operation,
    });
  };
  const bundle = (name: string) => options.bundles.find((each) => each.name === name);
  add('floor', 'create-plant', bundle('floor'));
  for (const operation of options.operations) {
    for (const role of ['limit', 'bare'] as const) {
      const reference = hasReferences(operation) && bundle(bundleName(role, operation));
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
        const [issuerEndpoint, storeEndpoint] = endpoints as [HttpsEndpoint, HttpsEndpoint];
        const issuerUrl = issuerEndpoint.url.origin;
        const deployment: Deployment = {
          region: 'eu-west-1',
          accountId: '123456789012',
          resources: {
            'AWS::DynamoDB::Table': { ref: options.store.tableName },
            'AWS::Cognito::UserPool': { attributes: { ProviderURL: issuerUrl } },
            'AWS::Cognito::UserPoolClient': { ref: clientId },
          },
        };
        const token = await options.issuer.mint(issuerUrl);
        const ports = {
          jwks: Number(issuerEndpoint.url.port),
          dynamodb: Number(storeEndpoint.url.port),
        };

        const once = async (name: string): Promise<ColdRequestSample> => {
          const runner = runners.get(name);
          if (!runner) throw new Error(`no asset for ${name}`);
          const { spec: fn } = runner;
          const env = deployedEnvironment({
            fn,
            deployment,
            ca,
            dynamodbEndpoint: storeEndpoint.url,
          });
          const profileDir = path.join(options.cpuProfileDir ?? '', name.replace(':', '-'));
          const profile = options.cpuProfileDir && /:(shipped|limit)$/.test(name);
          const execArgv = [
            '--cpu-prof',
            '--cpu-prof-interval=100',
            `--cpu-prof-dir=${profileDir}`,
          ];
          const lambda = await startLambdaProcess({ env, execArgv: profile ? execArgv : [] });
          try {
            const declared = operationNamed(runner.operation);
            const { sample } = checksOf(declared);
            const event = gatewayEvent(declared, sample.request(String(nextId++)), token);
            const result = await lambda.invoke(event);
            const status = (result.result as { statusCode?: number } | undefined)?.statusCode;
            if (!result.ok || status !== (name === 'floor' ? 200 : sample.status)) {
              throw new Error(
                `${name} answered ${status ?? result.error}: ${JSON.stringify(result.result)}\n${lambda.output()}`,
              );
            }
            return sampleOf(lambda.initMs, result, ports);
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

/** The event API Gateway hands the function, as the dev server's gateway builds it. */
export function gatewayEvent(
  operation: Operation,
  request: SampleRequest,
  token: string,
): APIGatewayProxyEventV2 {
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
function sampleOf(
  initMs: number,
  result: InvokeResult,
  ports: { readonly jwks: number; readonly dynamodb: number },
) {
  const { socketTraces, requestTraces, startedAt, finishedAt } = result;
  const span = (port: number) => {
    const sockets = socketTraces.filter((socket) => socket.port === port);
    const socketIds = new Set(sockets.map((socket) => socket.id));
    const requests = requestTraces.filter(
      (request) => request.socketId !== undefined && socketIds.has(request.socketId),
    );
    if (requests.length === 0) return { total: 0, inInvoke: 0 };
    const begin = Math.min(
      ...sockets.map((socket) => socket.createdAt),
      ...requests.map((request) => request.startedAt),
    );
    const end = Math.max(...requests.map((request) => request.finishedAt ?? finishedAt));
    return { total: end - begin, inInvoke: Math.max(0, end - Math.max(begin, startedAt)) };
  };
  const keySet = span(ports.jwks);
  const dynamoDb = span(ports.dynamodb);
  const firstInvokeMs = finishedAt - startedAt;
  return {
    initMs,
    firstInvokeMs,
    totalMs: finishedAt,
    cpuMs: result.cpuMs,
    connectMs: socketTraces.reduce(
      (sum, socket) => sum + ((socket.connectedAt ?? socket.createdAt) - socket.createdAt),
      0,
    ),
    tlsMs: socketTraces.reduce(
      (sum, socket) =>
        sum +
        (socket.secureAt !== undefined && socket.connectedAt !== undefined
          ? socket.secureAt - socket.connectedAt
          : 0),
      0,
    ),
    connections: socketTraces.length,
    keySetMs: keySet.total,
    keySetInInvokeMs: keySet.inInvoke,
    dynamoDbMs: dynamoDb.total,
    dynamoDbInInvokeMs: dynamoDb.inInvoke,
  };
}

function summarize(
  rttMs: number,
  options: ColdRequestOptions,
  samples: ReadonlyMap<string, ColdRequestSample[]>,
) {
  const of = (name: string) => samples.get(name) ?? [];
  const medianOf = (name: string): VariantFigures => {
    const list = of(name);
    const keys = Object.keys(list[0] ?? {}) as (keyof ColdRequestSample)[];
    return {
      runs: list.length,
      ...Object.fromEntries(
        keys.map((key) => [key, round(median(list.map((sample) => sample[key])), 1)]),
      ),
    } as VariantFigures;
  };
  const ratios = (name: string, reference: string) =>
    of(name).map((sample, index) => sample.totalMs / (of(reference)[index]?.totalMs ?? Number.NaN));
  const pairRatio = (name: string, reference: string) => round(median(ratios(name, reference)));
  const shippedCreate = variantId('create-plant', 'shipped');
  return {
    rttMs,
    rounds: options.rounds,
    floor: medianOf('floor'),
    operations: options.operations.map((operation): OperationColdRequest => {
      const [limit, bare, shipped] = coldRequestVariants.map((variant) =>
        variantId(operation, variant),
      ) as [string, string, string];
      const shippedOverFloor = pairRatio(shipped, 'floor');
      if (!samples.has(limit)) {
        return { operation, variants: { shipped: medianOf(shipped) }, shippedOverFloor };
      }
      return {
        operation,
        variants: { limit: medianOf(limit), bare: medianOf(bare), shipped: medianOf(shipped) },
        shippedOverLimit: pairRatio(shipped, limit),
        limitOverBare: pairRatio(limit, bare),
        shippedOverBare: pairRatio(shipped, bare),
        shippedOverFloor,
      };
    }),
    swaps: options.swaps.map(({ name }) => {
      const id = `swap:${name}`;
      const overShipped = ratios(id, shippedCreate);
      const shippedMs = of(shippedCreate).map((sample) => sample.totalMs);
      const minus = of(id).map(
        (sample, index) => sample.totalMs - (shippedMs[index] ?? Number.NaN),
      );
      const spread = (values: number[], digits: number) => ({
        median: round(median(values), digits),
        p25: round(percentile(values, 25), digits),
        p75: round(percentile(values, 75), digits),
      });
      return {
        name,
        figures: medianOf(id),
        overShipped: {
          ...spread(overShipped, 3),
          min: round(Math.min(...overShipped), 3),
          max: round(Math.max(...overShipped), 3),
        },
        minusShippedMs: spread(minus, 1),
        overLimit: pairRatio(id, variantId('create-plant', 'limit')),
        overBare: pairRatio(id, variantId('create-plant', 'bare')),
      };
    }),
  };
}

/** FLOOR, then each operation's variants, as the table and the chart list them; x LIMIT for each. */
export function variantRows(figure: ColdRequestFigures) {
  const floor = { label: roleLabel.floor, measured: figure.floor, overLimit: '', shipped: false };
  return [
    floor,
    ...figure.operations.flatMap((op) =>
      coldRequestVariants.map((variant) => ({
        label: `${op.operation} ${roleLabel[variant]}`,
        measured: op.variants[variant] as VariantFigures | undefined,
        overLimit:
          variant === 'shipped'
            ? (op.shippedOverLimit?.toFixed(2) ?? '')
            : variant === 'limit'
              ? '1.00'
              : (1 / (op.limitOverBare ?? Number.NaN)).toFixed(2),
        shipped: variant === 'shipped',
      })),
    ),
  ];
}

/** As `npm run bench` prints them: ratios to LIMIT and BARE, then where the time went. */
export function coldRequestTable(figures: readonly ColdRequestFigures[]): string[] {
  const load = loadAverage();
  const lines = [
    `${'cold request over TLS'.padEnd(16)}${pad('RTT', 5)}${pad('FLOOR', 8)}${pad('LIMIT', 8)}${pad('BARE', 8)}${pad('shipped', 9)}${pad('shipped/LIMIT', 15)}${pad('LIMIT/BARE', 12)}${pad('shipped/BARE', 14)}`,
  ];
  const ms = (value: number | undefined) => (value === undefined ? '' : `${value.toFixed(0)} ms`);
  const ratio = (value: number | undefined, width: number) =>
    value === undefined ? '' : pad(value.toFixed(2), width);
  for (const figure of figures) {
    for (const op of figure.operations) {
      const { limit, bare, shipped } = op.variants;
      const references =
        limit === undefined || bare === undefined
          ? `${pad('no reference', 16)}`
          : `${pad(ms(limit.totalMs), 8)}${pad(ms(bare.totalMs), 8)}`;
      lines.push(
        `${op.operation.padEnd(16)}${pad(`${figure.rttMs} ms`, 5)}${pad(ms(figure.floor.totalMs), 8)}${references}${pad(ms(shipped.totalMs), 9)}${ratio(op.shippedOverLimit, 15)}${ratio(op.limitOverBare, 12)}${ratio(op.shippedOverBare, 14)}`.trimEnd(),
      );
    }
  }
  lines.push(
    `  totals (process start to the answer), medians of ${figures[0]?.rounds ?? 0} interleaved rounds per RTT, fresh process each, asset from cdk synth; ratios = medians of per-round ratios; load ${load}`,
    '',
    `${'where the time went'.padEnd(32)}${pad('RTT', 5)}${pad('init', 8)}${pad('1st inv', 9)}${pad('total', 8)}${pad('CPU', 8)}${pad('x LIMIT', 9)}${pad('conns', 7)}${pad('TLS', 7)}${pad('keys', 7)}${pad('(in inv)', 9)}${pad('DDB', 7)}${pad('(in inv)', 9)}`,
  );
  const row = (label: string, rttMs: number, v: VariantFigures, ratio: string) =>
    `${label.padEnd(32)}${pad(rttMs, 5)}${pad(v.initMs.toFixed(1), 8)}${pad(v.firstInvokeMs.toFixed(1), 9)}${pad(v.totalMs.toFixed(1), 8)}${pad(v.cpuMs.toFixed(1), 8)}${pad(ratio, 9)}${pad(v.connections, 7)}${pad(v.tlsMs.toFixed(1), 7)}${pad(v.keySetMs.toFixed(1), 7)}${pad(v.keySetInInvokeMs.toFixed(1), 9)}${pad(v.dynamoDbMs.toFixed(1), 7)}${pad(v.dynamoDbInInvokeMs.toFixed(1), 9)}`;
  for (const figure of figures) {
    for (const { label, measured, overLimit } of variantRows(figure)) {
      lines.push(
        measured === undefined
          ? `${label.padEnd(32)}${pad(figure.rttMs, 5)}  no reference`
          : row(label, figure.rttMs, measured, overLimit),
      );
    }
    for (const swap of figure.swaps) {
      lines.push(row(`swap: ${swap.name}`, figure.rttMs, swap.figures, swap.overLimit.toFixed(2)));
    }
  }
  for (const figure of figures) {
    for (const swap of figure.swaps) {
      const { median: mid, p25, p75, min, max } = swap.overShipped;
      const minus = swap.minusShippedMs;
      lines.push(
        `  RTT ${figure.rttMs} ms, ${swap.name} / shipped, per round: median ${mid.toFixed(3)} (p25 ${p25.toFixed(3)}, p75 ${p75.toFixed(3)}; min ${min.toFixed(3)}, max ${max.toFixed(3)}); minus shipped: ${minus.median.toFixed(1)} ms (p25 ${minus.p25.toFixed(1)}, p75 ${minus.p75.toFixed(1)})`,
      );
    }
  }
  lines.push(
    "  x LIMIT = median of per-round ratios of totals (BARE's is 1 / LIMIT/BARE); CPU = the main thread's CPU time to the answer (user + system); TLS = handshakes summed; keys / DDB = first socket or request to last answer, (in inv) = the part inside the first invoke",
  );
  return lines;
}
