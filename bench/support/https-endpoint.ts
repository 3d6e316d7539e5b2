import { type AddressInfo, connect, createServer, type Server, type Socket } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import type { ThrowawayCa } from './throwaway-ca.ts';

export type HttpsEndpoint = {
  readonly url: URL;
  handshakes(): number;
  close(): Promise<void>;
};

/** A loopback HTTP server as an AWS endpoint looks: HTTPS, the round trip in front of TLS. */
export async function startHttpsEndpoint(
  upstream: URL,
  ca: ThrowawayCa,
  { rttMs = 0 }: { readonly rttMs?: number } = {},
): Promise<HttpsEndpoint> {
  const sockets = new Set<Socket>();
  const track = (a: Socket, b: Socket) => {
    for (const socket of [a, b]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    }
    a.on('error', () => b.destroy());
    b.on('error', () => a.destroy());
  };
  const listen = async (server: Server) => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return (server.address() as AddressInfo).port;
  };

  // No Nagle, as on AWS: an answer after the session tickets would wait for a delayed ACK.
  let handshakes = 0;
  const tlsOptions = { key: ca.serverKey, cert: ca.serverCertChain, noDelay: true };
  const tls = createTlsServer(tlsOptions, (client) => {
    handshakes += 1;
    const target = connect({ port: Number(upstream.port), host: upstream.hostname, noDelay: true });
    track(client, target);
    client.pipe(target).pipe(client);
  });
  tls.on('tlsClientError', () => {});
  const tlsPort = await listen(tls);

  // Loopback connects at once: a client's first bytes wait a whole round trip, as over a network.
  const oneWayMs = rttMs / 2;
  const delayed = (from: Socket, to: Socket, notBefore: number) => {
    let lastDue = notBefore;
    const later = (action: () => void) => {
      lastDue = Math.max(lastDue, Math.max(performance.now(), notBefore) + oneWayMs);
      setTimeout(action, lastDue - performance.now());
    };
    from.on('data', (chunk) => later(() => to.destroyed || to.write(chunk)));
    from.on('end', () => later(() => to.destroyed || to.end()));
  };
  const proxy = createServer({ noDelay: true }, (client) => {
    const target = connect({ port: tlsPort, host: '127.0.0.1', noDelay: true });
    track(client, target);
    if (rttMs === 0) {
      client.pipe(target).pipe(client);
      return;
    }
    delayed(client, target, performance.now() + rttMs);
    delayed(target, client, performance.now());
  });
  const url = new URL(`https://127.0.0.1:${await listen(proxy)}`);

  const closed = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()));
  return {
    url,
    handshakes: () => handshakes,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await Promise.all([closed(proxy), closed(tls)]);
    },
  };
}
