import { loadConfig } from './config.ts';
import { keepAliveAgent, preconnect } from './outbound-http.ts';

/**
 * The first module a handler evaluates (its first import): configuration, read once, and the two
 * connections a cold request needs, opened before the rest of the bundle evaluates.
 *
 * A cold request waits for the issuer's key set (TCP, TLS, then the GET: three round trips) and
 * then for DynamoDB. Here both TCP handshakes start, and init yields once so that they go out
 * (after name resolution, waited for at most `lookupWaitMs`); the schema, Middy and jose then
 * evaluate while the handshakes travel. TLS and the key set's GET follow on the first turn after
 * init (`preconnect`, `prefetchKeys`). Nothing here can fail or hold up init beyond that wait:
 * a connection that fails only means the first request opens its own (`npm run bench`, cold
 * request, measures the gain).
 */
export const config = loadConfig(process.env);

/** One connection is enough: the key set is fetched at most once at a time. */
export const issuerAgent = keepAliveAgent(config.auth.jwksUrl, 1);
export const dynamoDbAgent = keepAliveAgent(config.dynamodb.endpoint, 50);

/** Lambda's resolver answers in about a millisecond; a slower one is not waited for. */
const lookupWaitMs = 5;

// The issuer first: its key set is on the first request's critical path, while the DynamoDB
// connection has a round trip to spare.
const underway = Promise.all([
  preconnect(issuerAgent, config.auth.jwksUrl),
  preconnect(dynamoDbAgent, config.dynamodb.endpoint),
]);
await Promise.race([underway, new Promise((resolve) => setTimeout(resolve, lookupWaitMs).unref())]);
