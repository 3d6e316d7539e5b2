import { loadConfig } from '../config.ts';
import { keepAliveAgent } from './outbound-http.ts';

/**
 * The first module a handler evaluates (its first import): configuration, read once, and the
 * connections a cold request needs, opened before the rest of the bundle evaluates.
 *
 * A cold request waits for the issuer's key set (TCP, TLS, then the GET: three round trips), then
 * for DynamoDB. The issuer's connection, TCP and TLS, starts here, and init yields until it has
 * gone out (its name resolved: at most `lookupWaitMs`), so that its handshakes travel while the
 * schema, Middy and the verifier evaluate. The key set's GET follows on the first turn after init
 * (`prefetchKeys` in the handler), and so does DynamoDB's connection. Nothing here fails or holds
 * up init beyond that wait: a connection that fails only means the first request opens its own.
 */
export const config = loadConfig(process.env);

/** One connection is enough: the key set is fetched at most once at a time. */
export const issuerAgent = keepAliveAgent(config.auth.jwksUrl, 1);
export const dynamoDbAgent = keepAliveAgent(config.dynamodb.endpoint, 50);

/** Lambda's resolver answers at once; a slower one is not waited for. */
const lookupWaitMs = 5;

const issuerUnderway = issuerAgent.preconnect();
let waited: NodeJS.Timeout | undefined;
await Promise.race([
  issuerUnderway,
  new Promise((resolve) => {
    waited = setTimeout(resolve, lookupWaitMs);
  }),
]);
clearTimeout(waited);

// DynamoDB's connection has a round trip to spare behind the key set, so it opens on the first
// turn after init, and its name's lookup is no part of init.
setImmediate(() => dynamoDbAgent.preconnect());
