import { generateKeyPairSync } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { readCompactJws } from '../../../functions/auth/compact-jws.ts';
import {
  type Algorithm,
  InvalidKeySetError,
  NoMatchingKeyError,
} from '../../../functions/auth/json-web-key-set.ts';
import { createRemoteKeySet, type RemoteKeySet } from '../../../functions/auth/remote-key-set.ts';
import {
  createJwtVerifier,
  keySetSettings,
  verifyJwt,
} from '../../../functions/auth/token-verifier.ts';
import { keepAliveAgent } from '../../../functions/connections/outbound-http.ts';
import { startTestIssuer, type TestIssuer } from '../../support/test-issuer.ts';
import { respell } from '../../support/token-spelling.ts';

const production = keySetSettings;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let issuer: TestIssuer;
beforeEach(async () => {
  issuer = await startTestIssuer();
});
afterEach(() => issuer.close());

/** The token verified with `keys`, as the function verifies it. */
const verified = (keys: RemoteKeySet, token: string) =>
  verifyJwt(token, keys, { issuer: issuer.issuer, audiences: ['test-client'] });

/** What `keys` answers for the token's header: its key, or the key set's own failure. */
function keyFor(keys: RemoteKeySet, token: string) {
  const { alg, kid } = readCompactJws(token).header;
  return keys(alg as Algorithm, kid);
}

describe('createRemoteKeySet', () => {
  it('fetches the key set once for many verifications, and once for concurrent first ones', async () => {
    const keys = createRemoteKeySet(new URL(issuer.jwksUrl), production);
    const token = await issuer.mint();

    await Promise.all(Array.from({ length: 10 }, () => verified(keys, token)));
    await verified(keys, token);

    expect(issuer.jwksFetches()).toBe(1);
  });

  it('picks up a rotated key after the cooldown, and refetches at most once per cooldown', async () => {
    // Long enough for an RSA key to be made under load (a 200 ms cooldown was not, at load 9).
    const cooldownMs = 2000;
    const keys = createRemoteKeySet(new URL(issuer.jwksUrl), { ...production, cooldownMs });
    await verified(keys, await issuer.mint());
    const fetchedAt = performance.now();
    await issuer.rotate();
    const rotated = await issuer.mint();

    const tooSoon = await Promise.allSettled(
      Array.from({ length: 20 }, () => keyFor(keys, rotated)),
    );
    const tooSoonWithinCooldown = performance.now() - fetchedAt < cooldownMs;
    await sleep(fetchedAt + cooldownMs + 50 - performance.now());
    const afterCooldown = await verified(keys, rotated);

    expect(tooSoonWithinCooldown).toBe(true);
    expect(tooSoon.every((outcome) => outcome.status === 'rejected')).toBe(true);
    expect((tooSoon[0] as PromiseRejectedResult).reason).toBeInstanceOf(NoMatchingKeyError);
    expect(afterCooldown.scopes).toStrictEqual(['plants/write']);
    expect(issuer.jwksFetches()).toBe(2);
  });

  it('refetches a key set older than its maximum age', async () => {
    const keys = createRemoteKeySet(new URL(issuer.jwksUrl), { ...production, cacheMaxAgeMs: 100 });
    const token = await issuer.mint();
    await verified(keys, token);

    await sleep(150);
    await verified(keys, token);

    expect(issuer.jwksFetches()).toBe(2);
  });

  it('with prefetch, fetches the set when created and serves the first token from it', async () => {
    const keys = createRemoteKeySet(new URL(issuer.jwksUrl), { ...production, prefetch: true });
    const token = await issuer.mint();
    await sleep(200);

    expect(issuer.jwksFetches()).toBe(1);
    await verified(keys, token);
    expect(issuer.jwksFetches()).toBe(1);
  });
});

describe('createRemoteKeySet with an issuer that misbehaves', () => {
  let server: Server;
  let answer: (respond: (status: number, body: string) => void) => void;
  let url: URL;
  let connections: number;

  beforeEach(async () => {
    connections = 0;
    server = createServer((_request, response) =>
      answer((status, body) => response.writeHead(status).end(body)),
    );
    server.on('connection', () => {
      connections += 1;
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`);
  });
  afterEach(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it.each([
    [
      'a 500',
      (respond: (status: number, body: string) => void) => respond(500, 'oops'),
      /answered 500/,
    ],
    [
      'HTML',
      (respond: (status: number, body: string) => void) => respond(200, '<html>'),
      SyntaxError,
    ],
    [
      'a key set of the wrong shape',
      (respond: (status: number, body: string) => void) => respond(200, '{"keys":5}'),
      InvalidKeySetError,
    ],
  ])('rejects %s', async (_case, behaviour, expected) => {
    answer = behaviour;
    const keys = createRemoteKeySet(url, production);

    const verifying = keyFor(keys, await issuer.mint());

    await expect(verifying).rejects.toThrow(expected);
  });

  it('with prefetch, a prefetch that fails only means the first token fetches', async () => {
    const jwks = await (await fetch(issuer.jwksUrl)).text();
    let fetches = 0;
    answer = (respond) => {
      fetches += 1;
      if (fetches === 1) respond(503, 'starting');
      else respond(200, jwks);
    };
    const keys = createRemoteKeySet(url, { ...production, prefetch: true });
    await sleep(200);
    expect(fetches).toBe(1);

    const { scopes } = await verified(keys, await issuer.mint());

    expect(scopes).toStrictEqual(['plants/write']);
    expect(fetches).toBe(2);
  });

  it('with prefetch, a request that joins a prefetch which then fails fetches once more itself', async () => {
    const jwks = await (await fetch(issuer.jwksUrl)).text();
    let fetches = 0;
    answer = (respond) => {
      fetches += 1;
      if (fetches === 1) setTimeout(() => respond(503, 'starting'), 200);
      else respond(200, jwks);
    };
    const keys = createRemoteKeySet(url, { ...production, prefetch: true });
    const token = await issuer.mint();
    await sleep(50);

    const { scopes } = await verified(keys, token);

    expect(scopes).toStrictEqual(['plants/write']);
    expect(fetches).toBe(2);
  });

  it('with an agent, fetches over its connections: one opened ahead serves the prefetch and later fetches', async () => {
    const jwks = await (await fetch(issuer.jwksUrl)).text();
    let fetches = 0;
    answer = (respond) => {
      fetches += 1;
      respond(200, jwks);
    };
    const agent = keepAliveAgent(url, 1);
    await agent.preconnect();
    const keys = createRemoteKeySet(url, {
      ...production,
      cacheMaxAgeMs: 0,
      prefetch: true,
      agent,
    });
    await sleep(200);

    await verified(keys, await issuer.mint());

    expect(fetches).toBe(2);
    expect(connections).toBe(1);
    agent.destroy();
  });

  it('starts the cooldown with a failed fetch too: an outage is not also a flood of fetches (red team I3)', async () => {
    const jwks = await (await fetch(issuer.jwksUrl)).text();
    let up = true;
    let fetches = 0;
    answer = (respond) => {
      fetches += 1;
      if (up) respond(200, jwks);
      else respond(500, 'down');
    };
    const known = await issuer.mint();
    const unknown = await issuer.mint({ unpublishedKey: true });
    let clock = Date.now();
    vi.spyOn(Date, 'now').mockImplementation(() => clock);
    try {
      const keys = createRemoteKeySet(url, production);
      await keyFor(keys, known);
      up = false;
      clock += production.cooldownMs;

      await expect(keyFor(keys, unknown)).rejects.toThrow(/answered 500/);
      for (let second = 1; second < 30; second += 1) {
        clock += 1000;
        await expect(keyFor(keys, unknown)).rejects.toThrow(NoMatchingKeyError);
        await keyFor(keys, known);
      }
      expect(fetches).toBe(2);
      clock += 1000;
      await expect(keyFor(keys, unknown)).rejects.toThrow(/answered 500/);
      expect(fetches).toBe(3);
    } finally {
      vi.restoreAllMocks();
    }
  });

  it('answers a token naming a key it refuses with a 401, and tells the operator once (red team L1)', async () => {
    const published = (await (await fetch(issuer.jwksUrl)).json()) as { keys: object[] };
    const weak = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({
      format: 'jwk',
    });
    const jwks = JSON.stringify({ keys: [...published.keys, { ...weak, kid: 'weak' }] });
    answer = (respond) => respond(200, jwks);
    const lines: { level: string; message: string; fields: object }[] = [];
    const verify = createJwtVerifier(
      { issuer: issuer.issuer, jwksUrl: url, audiences: ['test-client'] },
      { log: (level, message, fields) => lines.push({ level, message, fields }) },
    );
    // Its signature is not checked: the key it names is refused first.
    const naming = async (kid: string) =>
      respell(await issuer.mint(), 0, () =>
        Buffer.from(JSON.stringify({ alg: 'RS256', kid })).toString('base64url'),
      );

    for (let attempt = 0; attempt < 3; attempt += 1) {
      await expect(verify(await naming('weak'))).rejects.toMatchObject({
        statusCode: 401,
        reason: 'unusable_key',
      });
    }
    await expect(verify(await issuer.mint())).resolves.toMatchObject({ clientId: 'test-client' });
    expect(lines).toStrictEqual([
      {
        level: 'warn',
        message: 'unusable key in the issuer key set',
        fields: {
          kid: 'weak',
          jwksHost: url.host,
          error: ['UnusableKeyError: The RS256 key of the key set is shorter than 2048 bits'],
        },
      },
    ]);
  });

  it('gives up on an issuer that never answers at its deadline', async () => {
    answer = () => undefined;
    const keys = createRemoteKeySet(url, { ...production, timeoutMs: 200 });
    const started = performance.now();

    await expect(keyFor(keys, await issuer.mint())).rejects.toThrow(/did not answer within 200 ms/);
    expect(performance.now() - started).toBeLessThan(2000);
  });
});
