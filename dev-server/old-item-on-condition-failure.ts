import { once } from 'node:events';
import { Agent, createServer, request as httpRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { crc32 } from 'node:zlib';

/**
 * A stand-in for what dynalite leaves out: DynamoDB answers a write whose condition failed with
 * the item as it was, when the write asks for it with `ReturnValuesOnConditionCheckFailure:
 * ALL_OLD`; dynalite answers without it. This proxy, on loopback in front of dynalite, passes
 * every request through and, for such a failure, reads the item (GetItem, consistent) and adds it
 * to the error as DynamoDB documents (`Item`). The read follows the failed write, so a write
 * racing in between may show; either answer is one some order of the requests would give.
 */
export async function startOldItemProxy(
  dynaliteEndpoint: string,
): Promise<{ endpoint: string; close(): Promise<void> }> {
  const target = new URL(dynaliteEndpoint);
  const agent = new Agent({ keepAlive: true });
  const forward = (
    headers: IncomingMessage['headers'],
    method: string,
    body: Buffer,
  ): Promise<{ status: number; headers: IncomingMessage['headers']; body: Buffer }> =>
    new Promise((resolve, reject) => {
      const outgoing = httpRequest(
        { host: target.hostname, port: target.port, path: '/', method, headers, agent },
        (answer) => {
          const chunks: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => chunks.push(chunk));
          answer.on('end', () =>
            resolve({
              status: answer.statusCode ?? 500,
              headers: answer.headers,
              body: Buffer.concat(chunks),
            }),
          );
          answer.on('error', reject);
        },
      );
      outgoing.on('error', reject);
      outgoing.end(body);
    });

  const server = createServer(async (incoming, outgoing) => {
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of incoming) chunks.push(chunk as Buffer);
      const body = Buffer.concat(chunks);
      let answer = await forward(incoming.headers, incoming.method ?? 'POST', body);
      const wanted = oldItemRequest(incoming.headers['x-amz-target'], body, answer);
      if (wanted !== undefined) {
        const read = await forward(
          {
            ...incoming.headers,
            'x-amz-target': 'DynamoDB_20120810.GetItem',
            'content-length': String(Buffer.byteLength(wanted)),
          },
          'POST',
          Buffer.from(wanted),
        );
        const { Item } = JSON.parse(read.body.toString('utf8')) as { Item?: unknown };
        if (Item !== undefined) {
          const error = JSON.parse(answer.body.toString('utf8')) as Record<string, unknown>;
          const text = Buffer.from(JSON.stringify({ ...error, Item }));
          answer = {
            ...answer,
            body: text,
            // The client checks the body against its CRC32, as DynamoDB's answers carry one.
            headers: {
              ...answer.headers,
              'content-length': String(text.length),
              'x-amz-crc32': String(crc32(text)),
            },
          };
        }
      }
      outgoing.writeHead(answer.status, answer.headers);
      outgoing.end(answer.body);
    } catch {
      outgoing.destroy();
    }
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        agent.destroy();
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

const keyed = new Set(['PutItem', 'UpdateItem', 'DeleteItem']);

/** The GetItem body that reads the old item, when the answer is a condition failure asking for it. */
function oldItemRequest(
  target: string | string[] | undefined,
  body: Buffer,
  answer: { status: number; body: Buffer },
): string | undefined {
  const action = typeof target === 'string' ? target.split('.').at(-1) : undefined;
  if (action === undefined || !keyed.has(action) || answer.status !== 400) return undefined;
  if (!answer.body.includes('ConditionalCheckFailedException')) return undefined;
  const request = JSON.parse(body.toString('utf8')) as {
    TableName?: string;
    Key?: Record<string, unknown>;
    Item?: Record<string, unknown>;
    ReturnValuesOnConditionCheckFailure?: string;
  };
  if (request.ReturnValuesOnConditionCheckFailure !== 'ALL_OLD') return undefined;
  // The table's key is `id` alone (dev-server/dynamodb.ts creates it so).
  const id = request.Key?.id ?? request.Item?.id;
  if (id === undefined) return undefined;
  return JSON.stringify({ TableName: request.TableName, Key: { id }, ConsistentRead: true });
}
