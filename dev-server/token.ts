// `npm run -s token`: one bearer token on stdout, nothing else; problems go to stderr.
import { baseUrl, type LocalConfig, loadLocalConfig } from './config.ts';
import { DevIssuer, issuerPaths } from './dev-issuer.ts';
import { loadOrCreateSigningKey, recordedIssuer } from './issuer-files.ts';

if (import.meta.main) {
  try {
    process.stdout.write(`${await localToken(loadLocalConfig())}\n`);
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  }
}

/** One bearer token: signed with the server's kept key, or asked of the server in memory. */
export async function localToken(
  config: Pick<LocalConfig, 'host' | 'port' | 'dataDir' | 'client'>,
): Promise<string> {
  const { host, port, dataDir, client } = config;
  if (dataDir !== undefined) {
    const issuer = (await recordedIssuer(dataDir)) ?? baseUrl(host, port);
    const key = await loadOrCreateSigningKey(dataDir);
    return new DevIssuer({ issuer, key, client }).mintAccessToken();
  }
  const url = `${baseUrl(host, port)}${issuerPaths.token}`;
  const credentials = Buffer.from(`${client.id}:${client.secret}`).toString('base64');
  const response = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Basic ${credentials}` },
    body: new URLSearchParams({ grant_type: 'client_credentials' }),
  }).catch((error: unknown) => {
    throw new Error(
      `No local API answers at ${url}. With PLANTS_DATA_DIR=memory the signing key lives only in ` +
        'the running server: start it with `npm start` (same HOST and PORT) first.',
      { cause: error },
    );
  });
  const body = (await response.json().catch(() => ({}))) as { access_token?: unknown };
  if (!response.ok || typeof body.access_token !== 'string') {
    throw new Error(`${url} answered ${response.status} ${JSON.stringify(body)}`);
  }
  return body.access_token;
}
