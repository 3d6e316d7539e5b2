import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readCompactJws } from '../../../functions/auth/compact-jws.ts';
import { createJwtVerifier, keySetSettings } from '../../../functions/auth/token-verifier.ts';
import { createDynamoDbClient } from '../../../functions/connections/dynamodb-client.ts';
import { makeHandler } from '../../../functions/list-plants/list-plants.ts';
import type { Logger } from '../../../functions/log.ts';
import { createDynamoDbPlantStore } from '../../../functions/plants/dynamodb-plant-store.ts';
import { type DynaliteServer, startDynalite } from '../../support/dynalite-server.ts';
import { fakeContext, fakeListEvent } from '../../support/fake-event.ts';
import { startTestIssuer, type TestIssuer } from '../../support/test-issuer.ts';

/**
 * GET /plants through its handler, with the issuer's key set served by a server the test makes
 * answer, fail or hang, and the key set's clock moved by the test: how many fetches an outage
 * costs, what the requests in between are answered, and when a fetched set may still serve.
 */

type KeySetServer = {
  readonly url: URL;
  /** What the next fetches get: the set, a 503, or no answer until the test releases them. */
  mode: 'up' | 'down' | 'hang';
  /** The document `up` serves. */
  jwks: string;
  /** How many fetches reached the server. */
  hits(): number;
  /** The fetches `hang` holds, not answered yet. */
  readonly held: ServerResponse[];
  close(): Promise<void>;
};

async function startKeySetServer(jwks: string): Promise<KeySetServer> {
  let hits = 0;
  const held: ServerResponse[] = [];
  const state: KeySetServer = {
    url: new URL('http://127.0.0.1/'),
    mode: 'up',
    jwks,
    hits: () => hits,
    held,
    close: () => {
      for (const response of held) if (!response.writableEnded) response.writeHead(503).end();
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server: Server = createServer((_request, response) => {
    hits += 1;
    if (state.mode === 'up') {
      response.writeHead(200, { 'content-type': 'application/json' }).end(state.jwks);
    } else if (state.mode === 'down') {
      response.writeHead(503).end('unavailable');
    } else {
      held.push(response);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(state, { url: new URL(`http://127.0.0.1:${port}/.well-known/jwks.json`) });
}

let dynalite: DynaliteServer;
let issuer: TestIssuer;
beforeAll(async () => {
  [dynalite, issuer] = await Promise.all([startDynalite(), startTestIssuer()]);
});
afterAll(async () => {
  await issuer.close();
  await dynalite.close();
});

let keySet: KeySetServer;
let clock: number;
let token: string;
beforeEach(async () => {
  keySet = await startKeySetServer(await (await fetch(issuer.jwksUrl)).text());
  clock = Date.now();
  token = await issuer.mint({ claims: { scope: 'plants/read' }, expiresIn: 3600 });
});
afterEach(() => keySet.close());

/**
 * GET /plants as a container's handler answers it, its key set fetched from `keySet` on the
 * test's clock. A fetch deadline, when given, stands in for the production one that a hanging
 * issuer would otherwise make each test wait out.
 */
function listHandler(
  options: { readonly fetchTimeoutMs?: number; readonly verifierLog?: Logger } = {},
) {
  const handler = makeHandler({
    store: createDynamoDbPlantStore(
      createDynamoDbClient({
        endpoint: new URL(dynalite.endpoint),
        region: 'us-east-1',
        credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
      }),
      dynalite.tableName,
    ),
    verifyToken: createJwtVerifier(
      { issuer: issuer.issuer, jwksUrl: keySet.url, audiences: ['test-client'] },
      {
        log: options.verifierLog ?? (() => {}),
        keySet: {
          now: () => clock,
          ...(options.fetchTimeoutMs === undefined ? {} : { timeoutMs: options.fetchTimeoutMs }),
        },
      },
    ),
    requiredScope: 'plants/read',
    log: () => {},
  });
  return (bearer = token) => handler(fakeListEvent('', { token: bearer }), fakeContext());
}

/** The status and the headers a client reads to decide whether and when to retry. */
const answer = (result: APIGatewayProxyStructuredResultV2) => ({
  status: result.statusCode,
  retryAfter: result.headers?.['retry-after'],
});
// Retry-After is the interval before the container tries the issuer again.
const issuerUnavailable = { status: 503, retryAfter: String(keySetSettings.retryMs / 1000) };
const listed = { status: 200, retryAfter: undefined };

/** `count` requests one after another, the clock moving `stepMs` after each. */
async function inARow(
  list: () => Promise<APIGatewayProxyStructuredResultV2>,
  count: number,
  stepMs: number,
) {
  const answers = [];
  for (let request = 0; request < count; request += 1) {
    answers.push(answer(await list()));
    clock += stepMs;
  }
  return answers;
}

const { retryMs, cacheMaxAgeMs, staleIfErrorMs } = keySetSettings;
/** A step that keeps 20 requests in a row within one retry interval. */
const withinRetry = Math.floor((retryMs - 1) / 20);

describe('GET /plants while the issuer cannot serve its key set', () => {
  it('an issuer answering 503: one fetch per retry interval, the requests between answered 503 with Retry-After at once, served once it answers', async () => {
    keySet.mode = 'down';
    const list = listHandler();
    const startedAt = clock;

    // 20 requests within the interval that the first one's failed fetch starts.
    const outage = await inARow(list, 20, withinRetry);
    expect(outage).toStrictEqual(Array(20).fill(issuerUnavailable));
    expect(keySet.hits()).toBe(1);

    clock = startedAt + retryMs;
    expect(answer(await list())).toStrictEqual(issuerUnavailable);
    expect(keySet.hits()).toBe(2);

    // Back up, but this container tries again only once the interval is over.
    keySet.mode = 'up';
    clock += retryMs - 1;
    expect(answer(await list())).toStrictEqual(issuerUnavailable);
    expect(keySet.hits()).toBe(2);
    clock += 1;
    const recovered = await inARow(list, 20, 1000);
    expect(recovered).toStrictEqual(Array(20).fill(listed));
    expect(keySet.hits()).toBe(3);
  });

  it('a hanging issuer: concurrent requests share the one fetch, and the requests after its deadline answer 503 at once, not fetching while it still hangs', async () => {
    keySet.mode = 'hang';
    const list = listHandler({ fetchTimeoutMs: 100 });
    const startedAt = clock;

    const together = await Promise.all(Array.from({ length: 5 }, () => list()));
    const after = await inARow(list, 20, withinRetry);

    // All 25 answered while the issuer still holds the one fetch it saw.
    expect(keySet.hits()).toBe(1);
    expect(keySet.held.map((response) => response.writableEnded)).toStrictEqual([false]);
    expect(together.map(answer)).toStrictEqual(Array(5).fill(issuerUnavailable));
    expect(after).toStrictEqual(Array(20).fill(issuerUnavailable));

    keySet.held[0]?.writeHead(503).end();
    keySet.mode = 'up';
    clock = startedAt + retryMs;
    expect(answer(await list())).toStrictEqual(listed);
    expect(keySet.hits()).toBe(2);
  });

  it('a set it fetched serves for its hour past its age while fetches fail, then 503 at once; any set fetched replaces it', async () => {
    const warnings: { message: string; fields: object }[] = [];
    const list = listHandler({
      verifierLog: (_level, message, fields) => warnings.push({ message, fields }),
    });
    const fetchedAt = clock;
    expect(answer(await list())).toStrictEqual(listed);

    keySet.mode = 'down';
    clock = fetchedAt + cacheMaxAgeMs;
    const stale = await inARow(list, 20, withinRetry);
    expect(stale).toStrictEqual(Array(20).fill(listed));
    expect(keySet.hits()).toBe(2);

    clock = fetchedAt + cacheMaxAgeMs + staleIfErrorMs - 1;
    expect(answer(await list())).toStrictEqual(listed);
    expect(keySet.hits()).toBe(3);

    // The hour is over within the retry interval: refused without a fetch.
    clock += 1;
    expect(answer(await list())).toStrictEqual(issuerUnavailable);
    expect(keySet.hits()).toBe(3);
    // The operator is told of each failed fetch a stale set covered, not of each request.
    const told = (ageMs: number) => ({
      message: 'issuer key set past its age in use: it could not be fetched',
      fields: {
        jwksHost: keySet.url.host,
        ageSeconds: Math.floor(ageMs / 1000),
        error: [expect.stringMatching(/answered 503/)],
      },
    });
    expect(warnings).toStrictEqual([told(cacheMaxAgeMs), told(cacheMaxAgeMs + staleIfErrorMs - 1)]);

    // The issuer is back and has withdrawn the key the stale set still held.
    const { kid } = readCompactJws(token).header;
    await issuer.rotate();
    const rotated = await issuer.mint({ claims: { scope: 'plants/read' }, expiresIn: 3600 });
    const published = (await (await fetch(issuer.jwksUrl)).json()) as { keys: { kid: string }[] };
    keySet.jwks = JSON.stringify({ keys: published.keys.filter((key) => key.kid !== kid) });
    keySet.mode = 'up';
    clock += retryMs;
    const withdrawn = await list();
    expect(withdrawn.statusCode).toBe(401);
    expect(withdrawn.headers?.['www-authenticate']).toContain('Token signing key is not known');
    expect(answer(await list(rotated))).toStrictEqual(listed);
    expect(keySet.hits()).toBe(4);
  });

  it('a hanging issuer with a set past its age: the request that fetches is served at the deadline, the others at once, with one fetch', async () => {
    const list = listHandler({ fetchTimeoutMs: 100 });
    const fetchedAt = clock;
    expect(answer(await list())).toStrictEqual(listed);

    keySet.mode = 'hang';
    clock = fetchedAt + cacheMaxAgeMs;
    const stale = await inARow(list, 20, withinRetry);

    expect(stale).toStrictEqual(Array(20).fill(listed));
    expect(keySet.hits()).toBe(2);
    expect(keySet.held.map((response) => response.writableEnded)).toStrictEqual([false]);
  });
});
