import type { Socket } from 'node:net';
import { describe, expect, it, vi } from 'vitest';
import { operations } from '../../functions/operations.ts';
import { createPlant, useTestApi } from '../support/local-api-fixture.ts';

/**
 * dynalite's connections that have carried no request yet, open: each operation's function opens
 * one ahead of its first request. dynalite is a Node HTTP server, which answers such a connection
 * with `408 Request Timeout` and closes it once `headersTimeout` has passed, as it does when
 * `npm start` has stood idle for a minute; here the test gives that answer itself, when it chooses.
 */
const dynalite = vi.hoisted(() => ({ idle: new Set<Socket>(), changed: () => {} }));

vi.mock('dynalite', async (importOriginal) => {
  const { default: start } = await importOriginal<typeof import('dynalite')>();
  return {
    default: (options: Parameters<typeof start>[0]) => {
      const server = start(options);
      server.on('connection', (socket: Socket) => {
        dynalite.idle.add(socket);
        socket.once('close', () => dynalite.idle.delete(socket));
        dynalite.changed();
      });
      server.on('request', (request) => dynalite.idle.delete(request.socket));
      return server;
    },
  };
});

/** What Node's HTTP server writes to a connection that sent no request in time, before closing it. */
const requestTimeout = 'HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n';

/** Resolves once `count` connections to dynalite are open with no request on them. */
const idleConnections = (count: number) =>
  new Promise<Socket[]>((resolve) => {
    dynalite.changed = () => {
      if (dynalite.idle.size >= count) resolve([...dynalite.idle]);
    };
    dynalite.changed();
  });

describe('the local API once its store has answered the connections opened ahead', () => {
  const local = useTestApi();

  it('answers the first request of every operation as it would have at once, not 500', async () => {
    // Each operation's function starts at its first request, refused here for want of a token,
    // and opens its connection then.
    const { url } = local.api;
    for (const { method, path } of operations) {
      await fetch(`${url}${path.replace('{id}', '1')}`, { method });
    }
    const idle = await idleConnections(operations.length);
    await Promise.all(
      idle.map(
        (socket) =>
          new Promise((closed) => {
            socket.once('close', closed);
            socket.end(requestTimeout, () => socket.destroy());
          }),
      ),
    );
    const headers = { authorization: `Bearer ${local.token}`, 'content-type': 'application/json' };

    const created = await createPlant(local.api, local.token, '{"id":1,"name":"Fern"}');
    const listed = await fetch(`${url}/plants`, { headers });
    const got = await fetch(`${url}/plants/1`, { headers });
    const replaced = await fetch(`${url}/plants/1`, {
      method: 'PUT',
      headers,
      body: '{"name":"Ivy"}',
    });
    const deleted = await fetch(`${url}/plants/1`, { method: 'DELETE', headers });

    expect([created.status, listed.status, got.status, replaced.status, deleted.status]).toEqual([
      200, 200, 200, 200, 204,
    ]);
    expect(await created.json()).toEqual({ name: 'Fern' });
    expect(await listed.json()).toEqual([{ id: 1, name: 'Fern' }]);
    expect(await got.json()).toEqual({ id: 1, name: 'Fern' });
    expect(await replaced.json()).toEqual({ id: 1, name: 'Ivy' });
  });
});
