import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CognitoIdentityProviderClient } from '@aws-sdk/client-cognito-identity-provider';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { LocalApi } from '../../../dev-server/local-api.ts';
import {
  readClientSecret,
  requestClientCredentialsToken,
  type TokenRequest,
  TokenUnavailableError,
} from '../../../functions/pre-traffic-check/client-credentials.ts';
import { type FakeAws, startFakeAws } from '../../support/fake-aws.ts';
import { client, createPlant, startTestApi } from '../../support/local-api-fixture.ts';

/**
 * Token requests against the local API's token endpoint, which answers the client-credentials
 * grant as Cognito does, alone or behind a loopback server that first fails the way a user pool
 * domain does in its first minute.
 */

let api: LocalApi;
const servers: Server[] = [];

beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api?.close());
afterEach(async () => {
  await Promise.all(
    servers.splice(0).map(
      (server) =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    ),
  );
});

async function serve(listener: RequestListener): Promise<URL> {
  const server = createServer(listener);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/oauth2/token`);
}

/** The token endpoint after `failures` answers of `status`; counts what reached it. */
async function flakyTokenEndpoint(failures: number, status = 503) {
  let requests = 0;
  const url = await serve(async (request, response) => {
    requests += 1;
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    if (requests <= failures) return response.writeHead(status).end('<html>not yet</html>');
    const upstream = await fetch(`${api.url}/oauth2/token`, {
      method: 'POST',
      headers: {
        'content-type': String(request.headers['content-type']),
        authorization: String(request.headers.authorization),
      },
      body: Buffer.concat(chunks),
    });
    response
      .writeHead(upstream.status, { 'content-type': 'application/json' })
      .end(await upstream.text());
  });
  return { url, requests: () => requests };
}

const request = (overrides: Partial<TokenRequest> & Pick<TokenRequest, 'tokenUrl'>) => ({
  clientId: client.id,
  clientSecret: client.secret,
  deadline: Date.now() + 5_000,
  firstRetryDelayMs: 50,
  maxRetryDelayMs: 200,
  ...overrides,
});

describe('requestClientCredentialsToken', () => {
  it('gets a token the API accepts for a create', async () => {
    const token = await requestClientCredentialsToken(
      request({ tokenUrl: new URL(`${api.url}/oauth2/token`), scope: 'plants/write' }),
    );

    const created = await createPlant(api, token, '{"id":1,"name":"Fern"}');
    expect(created.status).toBe(200);
  });

  it('authenticates by HTTP Basic, each half form-encoded, and asks for the scope', async () => {
    const seen: { authorization?: string; contentType?: string; body?: string }[] = [];
    const tokenUrl = await serve(async (incoming, response) => {
      const chunks: Buffer[] = [];
      for await (const chunk of incoming) chunks.push(chunk as Buffer);
      seen.push({
        authorization: incoming.headers.authorization,
        contentType: incoming.headers['content-type'],
        body: Buffer.concat(chunks).toString('utf8'),
      });
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"access_token":"t"}');
    });

    await requestClientCredentialsToken(
      request({ tokenUrl, clientId: 'id:1', clientSecret: 'a+b/c=', scope: 'plants/write' }),
    );

    expect(seen).toEqual([
      {
        authorization: `Basic ${Buffer.from('id%3A1:a%2Bb%2Fc%3D').toString('base64')}`,
        contentType: 'application/x-www-form-urlencoded',
        body: 'grant_type=client_credentials&scope=plants%2Fwrite',
      },
    ]);
  });

  it.each([503, 404, 403, 500])(
    'retries a domain that answers %i at first, telling of each retry',
    async (status) => {
      const endpoint = await flakyTokenEndpoint(2, status);
      const retries: [number, string][] = [];

      const token = await requestClientCredentialsToken(
        request({
          tokenUrl: endpoint.url,
          onRetry: (attempt, reason) => retries.push([attempt, reason]),
        }),
      );

      expect(token).toMatch(/^eyJ/);
      expect(endpoint.requests()).toBe(3);
      expect(retries).toEqual([
        [1, `the token endpoint answered ${status}`],
        [2, `the token endpoint answered ${status}`],
      ]);
    },
  );

  it('retries a domain that refuses connections', async () => {
    const url = await serve(() => {});
    const [server] = servers.splice(0);
    await new Promise<void>((resolve) => server?.close(() => resolve()));
    const reasons: string[] = [];

    const attempt = requestClientCredentialsToken(
      request({
        tokenUrl: url,
        deadline: Date.now() + 600,
        onRetry: (_attempt, reason) => reasons.push(reason),
      }),
    );

    await expect(attempt).rejects.toThrow(TokenUnavailableError);
    expect(reasons.length).toBeGreaterThanOrEqual(2);
    expect(reasons[0]).toMatch(/ECONNREFUSED/);
  });

  it('gives up by its deadline, attempts that hang included', async () => {
    let requests = 0;
    const tokenUrl = await serve(() => {
      requests += 1;
    });
    const started = Date.now();

    const attempt = requestClientCredentialsToken(
      request({ tokenUrl, deadline: started + 3_000, attemptTimeoutMs: 300 }),
    );

    await expect(attempt).rejects.toThrow(/after \d+ attempts: TimeoutError/);
    // A hanging attempt is cut short and another made, however busy the machine.
    expect(requests).toBeGreaterThanOrEqual(2);
  });

  it.each([
    ['a wrong secret', { clientSecret: 'wrong' }, 'refused the client: invalid_client'],
    ['an unknown scope', { scope: 'plants/admin' }, 'refused the client: invalid_scope'],
  ])('stops at once on an OAuth error: %s', async (_case, overrides, message) => {
    const endpoint = await flakyTokenEndpoint(0);

    const attempt = requestClientCredentialsToken(
      request({ tokenUrl: endpoint.url, ...overrides }),
    );

    await expect(attempt).rejects.toThrow(message);
    expect(endpoint.requests()).toBe(1);
  });

  it('refuses a 200 without a token, without retrying', async () => {
    let requests = 0;
    const tokenUrl = await serve((_request, response) => {
      requests += 1;
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end('{"token_type":"Bearer"}');
    });

    await expect(requestClientCredentialsToken(request({ tokenUrl }))).rejects.toThrow(
      'answered 200 without a token',
    );
    expect(requests).toBe(1);
  });
});

describe('readClientSecret', () => {
  let aws: FakeAws;
  let cognito: CognitoIdentityProviderClient;

  beforeAll(async () => {
    aws = await startFakeAws({
      region: 'eu-west-1',
      userPoolClients: [
        { userPoolId: 'eu-west-1_Pool', clientId: 'machine', clientSecret: 's3cret' },
        { userPoolId: 'eu-west-1_Pool', clientId: 'public', clientSecret: '' },
      ],
    });
    cognito = new CognitoIdentityProviderClient({
      region: 'eu-west-1',
      endpoint: aws.env.AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER,
      credentials: { accessKeyId: 'AKIDTEST', secretAccessKey: 'test' },
    });
  });
  afterAll(async () => {
    cognito?.destroy();
    await aws?.close();
  });
  const signal = () => AbortSignal.timeout(5_000);

  it("reads the app client's secret from the pool", async () => {
    await expect(
      readClientSecret(cognito, { userPoolId: 'eu-west-1_Pool', clientId: 'machine' }, signal()),
    ).resolves.toBe('s3cret');
  });

  it('refuses an app client without a secret, and lets an unknown one fail', async () => {
    await expect(
      readClientSecret(cognito, { userPoolId: 'eu-west-1_Pool', clientId: 'public' }, signal()),
    ).rejects.toThrow('app client public has no secret');
    await expect(
      readClientSecret(cognito, { userPoolId: 'eu-west-1_Pool', clientId: 'other' }, signal()),
    ).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
  });
});
