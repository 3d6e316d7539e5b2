import type { Agent, ClientRequestArgs } from 'node:http';
import type { Socket } from 'node:net';
import type { APIGatewayProxyStructuredResultV2 as Result } from 'aws-lambda';
import { type Event, failure } from './limit-answers.ts';
import { type Jwk, verifiedClaims } from './limit-jwt.ts';
import { signedDynamoDbHeaders } from './limit-sigv4.ts';

/** What every LIMIT does (docs/performance.md); plain http: works too, for warm runs and tests. */
const http = process.getBuiltinModule('node:http');
const https = process.getBuiltinModule('node:https');
const env = process.env;
const issuer = env.AUTH_ISSUER ?? '';
const region = env.AWS_REGION ?? '';
const endpoint = new URL(
  env.AWS_ENDPOINT_URL_DYNAMODB ?? `https://dynamodb.${region}.amazonaws.com`,
);
const credentials = {
  accessKeyId: env.AWS_ACCESS_KEY_ID ?? '',
  secretAccessKey: env.AWS_SECRET_ACCESS_KEY ?? '',
  sessionToken: env.AWS_SESSION_TOKEN,
};

const send = (url: URL, options: ClientRequestArgs, body?: string) =>
  new Promise<{ status: number; text: string }>((resolve, reject) => {
    const transport = url.protocol === 'https:' ? https : http;
    const request = transport.request(url, { ...options, timeout: 3000 }, (response) => {
      let text = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
    });
    request.on('timeout', () => request.destroy(new Error(`${url.host} timed out`)));
    request.on('error', reject).end(body);
  });

let keySet: Promise<Jwk[]> | undefined;
const keys = () =>
  (keySet ??= send(new URL(env.AUTH_JWKS_URL ?? `${issuer}/.well-known/jwks.json`), {}).then(
    ({ text }) => (JSON.parse(text) as { keys: Jwk[] }).keys,
    (error: unknown) => {
      keySet = undefined;
      throw error;
    },
  ));
keys().catch(() => {});

const tls = endpoint.protocol === 'https:';
// `noDelay` as the agent sets it on its own connections: no write waits for an earlier one's ACK.
const port = Number(endpoint.port) || (tls ? 443 : 80);
const address = { host: endpoint.hostname, port, noDelay: true };
let warm: Socket | undefined = tls
  ? process.getBuiltinModule('node:tls').connect(address)
  : process.getBuiltinModule('node:net').connect(address);
// Unreferenced until a call takes it: an unused connection must not keep the process alive.
warm.on('error', () => {}).unref();
const BaseAgent: typeof Agent = tls ? https.Agent : http.Agent;
class WarmAgent extends BaseAgent {
  override createConnection(...args: Parameters<Agent['createConnection']>) {
    const socket = warm;
    warm = undefined;
    socket?.ref();
    return socket && !socket.destroyed ? socket : super.createConnection(...args);
  }
}
const agent = new WarmAgent({ keepAlive: true });

/** Undefined when the token is valid and carries the scope. */
export async function refusal(event: Event, defaultScope: string): Promise<Result | undefined> {
  const token = /^bearer +([\w-]+)\.([\w-]+)\.([\w-]+)$/i.exec(event.headers.authorization ?? '');
  if (!token) return failure(401, 'a bearer token is required', { 'www-authenticate': 'Bearer' });
  const audiences = env.AUTH_AUDIENCE?.split(',') ?? [];
  const claims = verifiedClaims(token.slice(1), await keys(), { issuer, audiences });
  if (!claims) {
    return failure(401, 'the token is not valid', {
      'www-authenticate': 'Bearer error="invalid_token"',
    });
  }
  const scope = env.AUTH_SCOPE ?? defaultScope;
  if (String(claims.scope).split(' ').includes(scope)) return undefined;
  const challenge = `Bearer error="insufficient_scope", scope="${scope}"`;
  return failure(403, `the token lacks the scope ${scope}`, { 'www-authenticate': challenge });
}

export async function dynamoDb(action: string, input: object) {
  const body = JSON.stringify({ TableName: env.PLANTS_TABLE_NAME, ...input });
  const headers = signedDynamoDbHeaders(endpoint, action, body, credentials, region, new Date());
  const { status, text } = await send(endpoint, { method: 'POST', headers, agent }, body);
  return { status, output: JSON.parse(text) as Record<string, unknown> };
}
