import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { createJwtVerifier } from '../../functions/create-plant/auth/token-verifier.ts';
import { makeHandler } from '../../functions/create-plant/create-plant.ts';
import type { Logger, LogLevel } from '../../functions/create-plant/log.ts';
import { createDynamoDbClient } from '../../functions/create-plant/store/dynamodb-client.ts';
import { createDynamoDbPlantStore } from '../../functions/create-plant/store/dynamodb-plant-store.ts';
import type { PlantStore } from '../../functions/create-plant/store/plant-store.ts';
import { type DynaliteServer, startDynalite } from './dynalite-server.ts';
import { fakeContext } from './fake-event.ts';
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
  readonly logs: LogLine[];
  /** How many times the handler asked the store for anything. */
  readonly storeCalls: () => number;
  invoke(event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2>;
  close(): Promise<void>;
};

/**
 * The real handler chain wired to a real dynalite and a test issuer, exactly as handler.ts wires it
 * on AWS, with the log lines captured and the store calls counted (counted, not replaced).
 */
export async function startPlantApi(
  options: { audiences?: string[]; wrapStore?: (store: PlantStore) => PlantStore } = {},
): Promise<PlantApiHarness> {
  const dynalite = await startDynalite();
  const issuer = await startTestIssuer();
  const tableName = await dynalite.createTable();
  const logs: LogLine[] = [];
  const log: Logger = (level, message, fields) => logs.push({ level, message, fields });
  let calls = 0;
  const realStore = createDynamoDbPlantStore(
    createDynamoDbClient({
      endpoint: new URL(dynalite.endpoint),
      region: 'us-east-1',
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    }),
    tableName,
  );
  const counted: PlantStore = {
    create: (plant) => {
      calls += 1;
      return realStore.create(plant);
    },
  };
  const handler = makeHandler({
    store: options.wrapStore ? options.wrapStore(counted) : counted,
    verifyToken: createJwtVerifier({
      issuer: issuer.issuer,
      jwksUrl: new URL(issuer.jwksUrl),
      audiences: options.audiences ?? [],
    }),
    requiredScope: 'plants/write',
    log,
  });
  return {
    dynalite,
    issuer,
    tableName,
    logs,
    storeCalls: () => calls,
    invoke: (event) => handler(event, fakeContext()),
    async close() {
      await issuer.close();
      await dynalite.close();
    },
  };
}

/** The parsed JSON body of a result. */
export function bodyOf(result: APIGatewayProxyStructuredResultV2): unknown {
  return JSON.parse(result.body ?? 'null');
}
