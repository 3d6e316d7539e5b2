import http from 'node:http';
import https from 'node:https';

/** The function's calls out: DynamoDB, and the issuer's JWKS. */
export type OutboundRequest = {
  readonly method: 'GET' | 'POST';
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
  /** One deadline from connect to last byte: a stalled connection must end. */
  readonly timeoutMs: number;
  /** An answer larger than this is cut off and fails. */
  readonly maxResponseBytes: number;
  readonly agent?: http.Agent;
};

export type OutboundResponse = { readonly statusCode: number; readonly body: string };

/**
 * One HTTP(S) exchange over `node:http(s)` (no `fetch`: undici would cost the cold start ~20 ms).
 * Every status resolves; a network error, the deadline or an oversized answer rejects.
 */
export function exchange(url: URL, options: OutboundRequest): Promise<OutboundResponse> {
  const { method, headers, agent, timeoutMs, maxResponseBytes } = options;
  return new Promise((resolve, reject) => {
    const request = transportFor(url).request(url, { method, headers, agent }, (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxResponseBytes) {
          request.destroy(new Error(`${url.host} answered more than ${maxResponseBytes} bytes`));
        } else chunks.push(chunk);
      });
      response.on('end', () => {
        clearTimeout(timer);
        resolve({
          statusCode: response.statusCode ?? 0,
          body: Buffer.concat(chunks).toString('utf8'),
        });
      });
      response.on('error', reject);
    });
    const timer = setTimeout(
      () => request.destroy(new Error(`${url.host} did not answer within ${timeoutMs} ms`)),
      timeoutMs,
    );
    request.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    request.end(options.body);
  });
}

/** Connections kept open across invocations of a warm container. */
export function keepAliveAgent(url: URL, maxSockets: number): http.Agent {
  return new (transportFor(url).Agent)({ keepAlive: true, maxSockets });
}

const transportFor = (url: URL) => (url.protocol === 'http:' ? http : https);
