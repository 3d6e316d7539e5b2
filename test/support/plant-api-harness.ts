import type {
  APIGatewayProxyEventV2,
  APIGatewayProxyStructuredResultV2,
  Context,
} from 'aws-lambda';
import { createJwtVerifier } from '../../functions/auth/token-verifier.ts';
import {
  createDynamoDbClient,
  type DynamoDbClientOptions,
} from '../../functions/connections/dynamodb-client.ts';
import type { Logger, LogLevel } from '../../functions/log.ts';
import type { OperationDependencies } from '../../functions/operation-edge.ts';
import { type OperationName, operations } from '../../functions/operations.ts';
import { createDynamoDbPlantStore } from '../../functions/plants/dynamodb-plant-store.ts';
import type { PlantStore } from '../../functions/plants/plant-store.ts';
import { type DynaliteServer, startDynalite } from './dynalite-server.ts';
import { fakeContext } from './fake-event.ts';
import { type FaultProxy, startFaultProxy } from './fault-proxy.ts';
import { startTestIssuer, type TestIssuer } from './test-issuer.ts';

export type LogLine = {
  level: LogLevel;
  message: string;
  fields: Readonly<Record<string, unknown>>;
};

export type PlantApiHarness = {
  readonly dynalite: DynaliteServer;
  readonly issuer: TestIssuer;
  readonly tableName: string;
  /** The fault proxy between the store and dynalite, when started with `faultProxy: true`. */
  readonly proxy: FaultProxy | undefined;
  readonly logs: LogLine[];
  /** An id no earlier call returned: each harness has a table of its own, far from literal ids. */
  freshId(): string;
  /** How many times the handler asked the store for anything. */
  readonly storeCalls: () => number;
  /** POST /plants: the create handler. */
  invoke(event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2>;
  /**
   * Every operation's handler, by its name in `functions/operations.ts`, each requiring the scope
   * the list declares, over the same store, verifier and log.
   */
  readonly handlers: Readonly<Record<OperationName, Invoke>>;
  close(): Promise<void>;
};

type Invoke = (event: APIGatewayProxyEventV2) => Promise<APIGatewayProxyStructuredResultV2>;

export type PlantApiOptions = {
  /** What AUTH_AUDIENCE would hold; @default the test issuer's client id, as the stack sets Cognito's */
  readonly audiences?: string[];
  /** Replace the store's methods it returns (each may call the real one); the rest stay real. */
  readonly wrapStore?: (store: PlantStore) => Partial<PlantStore>;
  /** Put a fault proxy (`test/support/fault-proxy.ts`) between the store and dynalite. */
  readonly faultProxy?: boolean;
  /** The DynamoDB client's timing; @default the production defaults of `createDynamoDbClient` */
  readonly dynamodb?: Pick<
    DynamoDbClientOptions,
    'attemptTimeoutMs' | 'maxAttempts' | 'backoffBaseMs'
  >;
  /** Also hand every log line to this logger (e.g. the real `jsonLogger`); they are captured anyway. */
  readonly log?: Logger;
};

/**
 * The real handler chains wired to a real dynalite and a test issuer, exactly as each handler.ts
 * wires its own on AWS, with the log lines captured and the store calls counted (counted, not replaced).
 */
export async function startPlantApi(options: PlantApiOptions = {}): Promise<PlantApiHarness> {
  const dynalite = await startDynalite();
  const issuer = await startTestIssuer();
  const { tableName } = dynalite;
  const proxy = options.faultProxy ? await startFaultProxy(dynalite.endpoint) : undefined;
  const logs: LogLine[] = [];
  const log: Logger = (level, message, fields) => {
    logs.push({ level, message, fields });
    options.log?.(level, message, fields);
  };
  let calls = 0;
  const realStore = createDynamoDbPlantStore(
    createDynamoDbClient({
      endpoint: new URL(proxy?.endpoint ?? dynalite.endpoint),
      region: 'us-east-1',
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
      ...options.dynamodb,
    }),
    tableName,
  );
  // Every method of the port, counted: a method added to the store is counted without a change here.
  const counted = Object.fromEntries(
    Object.entries(realStore).map(([method, call]: [string, (...args: never[]) => unknown]) => [
      method,
      (...args: never[]) => {
        calls += 1;
        return call(...args);
      },
    ]),
  ) as PlantStore;
  const dependencies = {
    store: { ...counted, ...options.wrapStore?.(counted) },
    verifyToken: createJwtVerifier({
      issuer: issuer.issuer,
      jwksUrl: new URL(issuer.jwksUrl),
      audiences: options.audiences ?? ['test-client'],
    }),
    log,
  };
  const handlers = Object.fromEntries(
    await Promise.all(
      operations.map(async ({ name, scope }) => {
        const handler = (await makerOf(name))({ ...dependencies, requiredScope: scope });
        const invoke: Invoke = (event) => handler(event, fakeContext());
        return [name, invoke] as const;
      }),
    ),
  ) as Record<OperationName, Invoke>;
  let lastId = 1_000_000_000n;
  return {
    dynalite,
    issuer,
    tableName,
    proxy,
    logs,
    storeCalls: () => calls,
    freshId: () => {
      lastId += 1n;
      return String(lastId);
    },
    invoke: handlers['create-plant'],
    handlers,
    async close() {
      await proxy?.close();
      await issuer.close();
      await dynalite.close();
    },
  };
}

type MakeHandler = (
  dependencies: OperationDependencies<PlantStore>,
) => (
  event: APIGatewayProxyEventV2,
  context: Context,
) => Promise<APIGatewayProxyStructuredResultV2>;

/** An operation's `makeHandler`, from `functions/<name>/<name>.ts` as every operation names it. */
async function makerOf(name: string): Promise<MakeHandler> {
  const module: { makeHandler?: MakeHandler } = await import(`../../functions/${name}/${name}.ts`);
  if (typeof module.makeHandler !== 'function') {
    throw new Error(`functions/${name}/${name}.ts exports no makeHandler`);
  }
  return module.makeHandler;
}

/** The parsed JSON body of a result. */
export function bodyOf(result: APIGatewayProxyStructuredResultV2): unknown {
  return JSON.parse(result.body ?? 'null');
}
