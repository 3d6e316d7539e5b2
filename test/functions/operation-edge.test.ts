import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { authorizedEdge } from '../../functions/operation-edge.ts';
import { fakeContext, fakeOperationEvent } from '../support/fake-event.ts';
import type { LogLine } from '../support/plant-api-harness.ts';

const operation = { outcomes: { done: 'Done' }, precondition: 'If-Match' } as const;
const route = { method: 'PUT', path: '/edge/{id}' } as const;

/** An operation of the edge alone whose own step and handler record what they saw, in order. */
function edgeOperation(handler: () => Promise<unknown>) {
  const logs: LogLine[] = [];
  const seen: string[] = [];
  const handle = authorizedEdge(operation, {
    verifyToken: async (token) => {
      seen.push('authorize');
      return { subject: 's', clientId: 'c', scopes: token === 'scoped' ? ['edge/use'] : [] };
    },
    requiredScope: 'edge/use',
    log: (level, message, fields) => logs.push({ level, message, fields }),
  })
    .use({ before: () => void seen.push('own step') })
    .handler(async (_event, context) => {
      seen.push('handler');
      context.outcome = 'done';
      await handler();
      return { statusCode: 200, body: String(context.precondition !== undefined) };
    });
  const invoke = (event: APIGatewayProxyEventV2) => handle(event, fakeContext());
  return { invoke, logs, seen };
}

const request = (headers: Record<string, string> = {}, token = 'scoped') =>
  fakeOperationEvent(route, { pathParameters: { id: '1' } }, { token, headers });
const statusLogged = (logs: readonly LogLine[]) =>
  logs.filter(({ message }) => message === 'request').map(({ fields }) => fields.status);

describe('authorizedEdge: the order its steps run in', () => {
  it("runs the edge, then the operation's own steps, then its handler, and logs the answer last", async () => {
    const { invoke, logs, seen } = edgeOperation(async () => {});

    const answer = await invoke(request({ 'if-match': '*' }));

    expect(answer).toStrictEqual({ statusCode: 200, body: 'true' });
    expect(seen).toStrictEqual(['authorize', 'own step', 'handler']);
    expect(logs.at(-1)?.fields).toMatchObject({ status: 200, outcome: 'done' });
  });

  it('maps an error of the handler to the answer before the log line is written', async () => {
    const { invoke, logs } = edgeOperation(async () => {
      throw new Error('broken');
    });

    const answer = await invoke(request());

    expect(answer.statusCode).toBe(500);
    expect(statusLogged(logs)).toStrictEqual([500]);
  });

  it('refuses an event API Gateway would never send before it authorizes', async () => {
    const { invoke, seen } = edgeOperation(async () => {});

    const answer = await invoke({ ...request(), headers: 'not a map' } as never);

    expect(answer.statusCode).toBe(400);
    expect(seen).toStrictEqual([]);
  });

  it("authorizes before it reads a precondition, and reads one before the operation's steps", async () => {
    const unscoped = edgeOperation(async () => {});
    const scoped = edgeOperation(async () => {});

    const forbidden = await unscoped.invoke(request({ 'if-none-match': '*' }, 'unscoped'));
    const refused = await scoped.invoke(request({ 'if-none-match': '*' }));

    expect(forbidden.statusCode).toBe(403);
    expect(refused.statusCode).toBe(400);
    expect(scoped.seen).toStrictEqual(['authorize']);
    expect(statusLogged(scoped.logs)).toStrictEqual([400]);
  });
});
