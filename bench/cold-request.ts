import { rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import {
  findLambdaFunction,
  type LambdaFunctionSpec,
  synthesizeApp,
} from '../test/support/cloud-assembly.ts';
import type { Deployment } from '../test/support/cloudformation.ts';
import { type HttpsEndpoint, startHttpsEndpoint } from '../test/support/https-endpoint.ts';
import { deployedEnvironment } from '../test/support/lambda-environment.ts';
import { type InvokeResult, startLambdaProcess } from '../test/support/lambda-process.ts';
import payloadV2Event from '../test/support/payload-v2-event.json' with { type: 'json' };
import type { TestIssuer } from '../test/support/test-issuer.ts';
import { createThrowawayCa, type ThrowawayCa } from '../test/support/throwaway-ca.ts';
import type { BuiltBundle } from './bundles.ts';
import { median, percentile, round } from './stats.ts';

/**
 * The cold request a caller of a new Lambda environment waits for: a fresh process loads the asset
 * `cdk synth` wrote, with the template's Handler, environment (evaluated as CloudFormation would)
 * and NODE_OPTIONS, plus Lambda's own variables; then it answers one valid POST /plants. DynamoDB
 * and the issuer's JWKS are HTTPS endpoints with a throwaway CA (NODE_EXTRA_CA_CERTS), `rtt` ms
 * away. FLOOR and BARE run the same way from their own asset folders, interleaved with shipped, and
 * so does each swap (`--swap`), compared with shipped round by round.
 */

export type ColdRequestVariant = 'floor' | 'bare' | 'shipped';

export type ColdRequestSample = {
  /** Process start to the handler module evaluated (what Lambda reports as Init Duration). */
  readonly initMs: number;
  /** The handler's run for the first event. */
  readonly firstInvokeMs: number;
  /**
   * Process start to the first answer: init, the runtime's hand-over of the event and the first
   * invoke, with whatever ran between them (work a module defers past its own loading counts).
   */
  readonly totalMs: number;
  /**
   * The main thread's CPU time to the answer. Close to `totalMs`, the run was bound by CPU rather
   * than by the network: moving work into a round trip's wait then saves nothing.
   */
  readonly cpuMs: number;
  /** TCP connect, summed over the function's connections. */
  readonly connectMs: number;
  /** TLS handshakes (TCP connected to handshake done), summed over the function's connections. */
  readonly tlsMs: number;
  /** Connections the function opened. */
  readonly connections: number;
  /** From the first JWKS socket or request to the key set read; 0 if never fetched. */
  readonly keySetMs: number;
  /** Of the key set's time, the part inside the first invoke (the rest overlapped init). */
  readonly keySetInInvokeMs: number;
  /** From the first DynamoDB socket or request to the last answer. */
  readonly dynamoDbMs: number;
  readonly dynamoDbInInvokeMs: number;
};

export type ColdRequestFigures = {
  readonly rttMs: number;
  readonly rounds: number;
  readonly variants: Record<
    ColdRequestVariant,
    { readonly [K in keyof ColdRequestSample]: number } & { readonly runs: number }
  >;
  /** Median over rounds of shipped / BARE, total (init + first invoke) of the same round. */
  readonly shippedOverBare: number;
  readonly shippedOverFloor: number;
  readonly swaps: readonly SwapFigures[];
};

/** A swap against shipped: per-round ratios of totals, their median and their spread. */
export type SwapFigures = {
  readonly name: string;
  readonly figures: { readonly [K in keyof ColdRequestSample]: number } & { readonly runs: number };
  readonly overShipped: {
    readonly median: number;
    readonly p25: number;
    readonly p75: number;
    readonly min: number;
    readonly max: number;
  };
  /** The same round's difference in totals, swap minus shipped, ms: median, p25, p75. */
  readonly minusShippedMs: { readonly median: number; readonly p25: number; readonly p75: number };
  readonly overBare: number;
};

export type ColdRequestOptions = {
  readonly rounds: number;
  readonly rtts: readonly number[];
  /** FLOOR and BARE, built with the stack's esbuild options. */
  readonly references: { readonly floor: BuiltBundle; readonly bare: BuiltBundle };
  readonly issuer: TestIssuer;
  /** dynalite, plain HTTP on loopback, and its table. */
  readonly store: { readonly endpoint: string; readonly tableName: string };
  readonly log: (message: string) => void;
  /** Profiles every shipped process into this folder (`--cpu-prof`); the figures then include the profiler. */
  readonly cpuProfileDir?: string;
  /** Shipped with modules replaced (`--swap`), measured in the same rounds. */
  readonly swaps?: readonly BuiltBundle[];
};

const region = 'eu-west-1';
const clientId = 'test-client';
export const coldRequestVariants: readonly ColdRequestVariant[] = ['floor', 'bare', 'shipped'];
export const coldRequestLabel = {
  floor: 'FLOOR',
  bare: 'BARE (AWS SDK v3)',
  shipped: 'shipped',
} as const satisfies Record<ColdRequestVariant, string>;

export async function measureColdRequests(
  options: ColdRequestOptions,
): Promise<ColdRequestFigures[]> {
  const { log } = options;
  log('cold request: synthesizing the app as `cdk synth` does ...');
  const assembly = await synthesizeApp();
  const shipped = findLambdaFunction(assembly, 'CreatePlant/Function/Resource');
  const assetOf: Record<string, LambdaFunctionSpec> = {
    shipped,
    floor: { ...shipped, assetDir: path.dirname(options.references.floor.file) },
    bare: { ...shipped, assetDir: path.dirname(options.references.bare.file) },
  };
  for (const swap of options.swaps ?? []) {
    assetOf[swap.name] = { ...shipped, assetDir: path.dirname(swap.file) };
  }
  const ca = await createThrowawayCa();
  try {
    return await measureEachRtt(options, assetOf, ca);
  } finally {
    await rm(assembly.outdir, { recursive: true, force: true });
    await rm(ca.dir, { recursive: true, force: true });
  }
}

async function measureEachRtt(
  options: ColdRequestOptions,
  assetOf: Record<string, LambdaFunctionSpec>,
  ca: ThrowawayCa,
): Promise<ColdRequestFigures[]> {
  const { log } = options;
  let nextId = BigInt(Date.now()) * 1000n + 500n;

  const figures: ColdRequestFigures[] = [];
  for (const rttMs of options.rtts) {
    const endpoints: HttpsEndpoint[] = [];
    try {
      const issuerEndpoint = await startHttpsEndpoint(new URL(options.issuer.issuer), ca, {
        rttMs,
      });
      endpoints.push(issuerEndpoint);
      const storeEndpoint = await startHttpsEndpoint(new URL(options.store.endpoint), ca, {
        rttMs,
      });
      endpoints.push(storeEndpoint);
      const issuerUrl = issuerEndpoint.url.origin;
      const deployment: Deployment = {
        region,
        accountId: '123456789012',
        resources: {
          'AWS::DynamoDB::Table': { ref: options.store.tableName },
          'AWS::Cognito::UserPool': { attributes: { ProviderURL: issuerUrl } },
          'AWS::Cognito::UserPoolClient': { ref: clientId },
        },
      };
      const token = await options.issuer.mint({ issuer: issuerUrl, expiresIn: 3600 });
      const ports = {
        jwks: Number(issuerEndpoint.url.port),
        dynamodb: Number(storeEndpoint.url.port),
      };

      const once = async (variant: string): Promise<ColdRequestSample> => {
        const fn = assetOf[variant];
        if (!fn) throw new Error(`no asset for ${variant}`);
        const env = deployedEnvironment({
          fn,
          deployment,
          ca,
          dynamodbEndpoint: storeEndpoint.url,
        });
        const profile = variant === 'shipped' && options.cpuProfileDir;
        const lambda = await startLambdaProcess({
          env,
          execArgv: profile
            ? ['--cpu-prof', '--cpu-prof-interval=100', `--cpu-prof-dir=${options.cpuProfileDir}`]
            : [],
        });
        try {
          const id = String(nextId++);
          const result = await lambda.invoke(plantEvent(token, id));
          const status = (result.result as APIGatewayProxyStructuredResultV2 | undefined)
            ?.statusCode;
          if (!result.ok || status !== 200) {
            throw new Error(
              `${variant} answered ${status ?? result.error}: ${JSON.stringify(result.result)}\n${lambda.output()}`,
            );
          }
          return sampleOf(lambda.initMs, result, ports);
        } finally {
          await lambda.close();
        }
      };

      const rotation = [...coldRequestVariants, ...(options.swaps ?? []).map((swap) => swap.name)];
      // One unmeasured round warms the fixtures' own side (their first TLS handshakes).
      for (const variant of rotation) await once(variant);
      log(`cold request, RTT ${rttMs} ms: ${options.rounds} rounds of ${rotation.join(', ')} ...`);
      const samples = new Map<string, ColdRequestSample[]>(
        rotation.map((variant) => [variant, []]),
      );
      for (let roundIndex = 0; roundIndex < options.rounds; roundIndex++) {
        for (let k = 0; k < rotation.length; k++) {
          const variant = rotation[(roundIndex + k) % rotation.length] as string;
          samples.get(variant)?.push(await once(variant));
        }
      }
      figures.push(summarize(rttMs, options.rounds, samples));
    } finally {
      for (const endpoint of endpoints) await endpoint.close();
    }
  }
  return figures;
}

function plantEvent(token: string, id: string) {
  const event = structuredClone(payloadV2Event) as { headers: Record<string, string> };
  event.headers.authorization = `Bearer ${token}`;
  return { ...event, body: `{"id":${id},"name":"Fern","tag":"indoor"}`, isBase64Encoded: false };
}

/** Where the first invoke's time went, from the runtime's diagnostics_channel traces. */
function sampleOf(
  initMs: number,
  result: InvokeResult,
  ports: { readonly jwks: number; readonly dynamodb: number },
): ColdRequestSample {
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
  rounds: number,
  samples: Map<string, ColdRequestSample[]>,
): ColdRequestFigures {
  const of = (variant: string) => samples.get(variant) ?? [];
  const medianOf = (variant: string) => {
    const list = of(variant);
    const keys = Object.keys(list[0] ?? {}) as (keyof ColdRequestSample)[];
    return {
      runs: list.length,
      ...Object.fromEntries(
        keys.map((key) => [key, round(median(list.map((sample) => sample[key])), 1)]),
      ),
    } as ColdRequestFigures['variants'][ColdRequestVariant];
  };
  const ratios = (variant: string, reference: string) =>
    of(variant).map(
      (sample, index) => sample.totalMs / (of(reference)[index]?.totalMs ?? Number.NaN),
    );
  const pairRatio = (reference: string, variant = 'shipped') =>
    round(median(ratios(variant, reference)));
  const swaps = [...samples.keys()].filter(
    (name) => !(coldRequestVariants as readonly string[]).includes(name),
  );
  return {
    rttMs,
    rounds,
    variants: {
      floor: medianOf('floor'),
      bare: medianOf('bare'),
      shipped: medianOf('shipped'),
    },
    shippedOverBare: pairRatio('bare'),
    shippedOverFloor: pairRatio('floor'),
    swaps: swaps.map((name) => {
      const overShipped = ratios(name, 'shipped');
      const minus = of(name).map(
        (sample, index) => sample.totalMs - (of('shipped')[index]?.totalMs ?? Number.NaN),
      );
      return {
        name,
        figures: medianOf(name),
        overShipped: {
          median: round(median(overShipped), 3),
          p25: round(percentile(overShipped, 25), 3),
          p75: round(percentile(overShipped, 75), 3),
          min: round(Math.min(...overShipped), 3),
          max: round(Math.max(...overShipped), 3),
        },
        minusShippedMs: {
          median: round(median(minus), 1),
          p25: round(percentile(minus, 25), 1),
          p75: round(percentile(minus, 75), 1),
        },
        overBare: pairRatio('bare', name),
      };
    }),
  };
}

/** The cold-request table as `npm run bench` prints it. */
export function coldRequestTable(figures: readonly ColdRequestFigures[]): string[] {
  const pad = (text: string | number, width: number) => String(text).padStart(width);
  const lines = [
    `${'cold request over TLS'.padEnd(26)}${pad('RTT', 5)}${pad('init', 8)}${pad('1st inv', 9)}${pad('total', 8)}${pad('CPU', 8)}${pad('x BARE', 8)}${pad('conns', 7)}${pad('TLS', 7)}${pad('keys', 7)}${pad('(in inv)', 9)}${pad('DDB', 7)}${pad('(in inv)', 9)}`,
  ];
  const row = (
    label: string,
    rttMs: number,
    v: ColdRequestFigures['variants']['shipped'],
    ratio: string,
  ) =>
    `${label.padEnd(26)}${pad(rttMs, 5)}${pad(v.initMs.toFixed(1), 8)}${pad(v.firstInvokeMs.toFixed(1), 9)}${pad(v.totalMs.toFixed(1), 8)}${pad(v.cpuMs.toFixed(1), 8)}${pad(ratio, 8)}${pad(v.connections, 7)}${pad(v.tlsMs.toFixed(1), 7)}${pad(v.keySetMs.toFixed(1), 7)}${pad(v.keySetInInvokeMs.toFixed(1), 9)}${pad(v.dynamoDbMs.toFixed(1), 7)}${pad(v.dynamoDbInInvokeMs.toFixed(1), 9)}`;
  for (const figure of figures) {
    for (const variant of coldRequestVariants) {
      const ratio =
        variant === 'shipped'
          ? figure.shippedOverBare.toFixed(2)
          : variant === 'bare'
            ? '1.00'
            : '';
      lines.push(row(coldRequestLabel[variant], figure.rttMs, figure.variants[variant], ratio));
    }
    for (const swap of figure.swaps) {
      lines.push(row(`swap: ${swap.name}`, figure.rttMs, swap.figures, swap.overBare.toFixed(2)));
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
    `  medians of ${figures[0]?.rounds ?? 0} interleaved rounds per RTT (fresh process each, asset from cdk synth, load ${os.loadavg()[0]?.toFixed(2)}); total = process start to the answer; x BARE = median of per-round shipped/BARE totals`,
    "  CPU = the main thread's CPU time to the answer (user + system); TLS = handshakes summed; keys / DDB = first socket or request to last answer, (in inv) = the part inside the first invoke",
  );
  return lines;
}
