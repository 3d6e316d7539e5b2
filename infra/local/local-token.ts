import { baseUrl, type LocalConfig } from './config.ts';
import { DevIssuer, issuerPaths } from './dev-issuer.ts';
import { recordedIssuer } from './issuer-record.ts';
import { loadOrCreateSigningKey } from './signing-key.ts';

/**
 * One bearer token the local API accepts. With a data directory it is signed here with the key the
 * server keeps there, for the issuer URL the server last recorded (so a server started with another
 * PORT still accepts it); in memory only the running server has the key, so it is asked over HTTP.
 */
export async function localToken(
  config: Pick<LocalConfig, 'host' | 'port' | 'dataDir' | 'client'>,
): Promise<string> {
  if (config.dataDir === undefined) return requestToken(config);
  const issuer = new DevIssuer({
    issuer: (await recordedIssuer(config.dataDir)) ?? baseUrl(config.host, config.port),
    key: await loadOrCreateSigningKey(config.dataDir),
    client: config.client,
  });
  return issuer.mintAccessToken();
}

async function requestToken(
  config: Pick<LocalConfig, 'host' | 'port' | 'client'>,
): Promise<string> {
  const url = `${baseUrl(config.host, config.port)}${issuerPaths.token}`;
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${config.client.id}:${config.client.secret}`).toString('base64')}`,
      },
      body: 'grant_type=client_credentials',
    });
  } catch (error) {
    throw new Error(
      `No local API answers at ${url}. With PLANTS_DATA_DIR=memory the signing key lives only in ` +
        'the running server: start it with `npm start` (same HOST and PORT) first.',
      { cause: error },
    );
  }
  const body = (await response.json().catch(() => ({}))) as {
    access_token?: unknown;
    error?: unknown;
  };
  if (!response.ok || typeof body.access_token !== 'string') {
    throw new Error(`${url} answered ${response.status} ${JSON.stringify(body)}`);
  }
  return body.access_token;
}
