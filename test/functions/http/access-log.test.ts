import { describe, expect, it } from 'vitest';
import { UnauthorizedError } from '../../../functions/auth/auth-errors.ts';
import { operation as createPlant } from '../../../functions/create-plant/operation.ts';
import { countersOf } from '../../../functions/operation-edge.ts';

const createPlantOutcomes = countersOf(createPlant);

import { failureCounters } from '../../../functions/failures.ts';
import { accessLog, roundMs } from '../../../functions/http/access-log.ts';
import type { OutcomeCounters } from '../../../functions/http/request-metrics.ts';
import { errorResponse, jsonResponse } from '../../../functions/http/respond.ts';
import type { LogFields, LogLevel } from '../../../functions/log.ts';
import { fakeEvent } from '../../support/fake-event.ts';
import { middlewareRequest, type PlantRequest } from '../../support/middleware-request.ts';

const secretToken = 'eyJ.secret-token.sig';
const secretBody = '{"id":1,"name":"secret-name"}';

/**
 * Runs a request through accessLog's `before`, then `settle` (the rest of the chain), then its
 * `after` or `onError`, counting outcomes as POST /plants declares them unless told otherwise.
 */
async function logged(
  settle: (request: PlantRequest) => void,
  ending: 'after' | 'onError',
  counters: OutcomeCounters = createPlantOutcomes,
) {
  const lines: { level: LogLevel; message: string; fields: LogFields }[] = [];
  const middleware = accessLog(
    (level, message, fields) => lines.push({ level, message, fields }),
    'fn-1',
    counters,
  );
  const request = middlewareRequest(fakeEvent({ token: secretToken, body: secretBody }));

  await middleware.before?.(request);
  settle(request);
  await middleware[ending]?.(request);

  return lines;
}

describe('accessLog', () => {
  it('writes one request line with the request ids, the caller, status, outcome, latency and metrics', async () => {
    const lines = await logged((request) => {
      request.context.caller = { subject: 'cli', clientId: 'cli-client', scopes: [] };
      request.context.outcome = 'replayed';
      request.context.storeLatencyMs = 3.25;
      request.response = jsonResponse(200, { name: 'Fern' });
    }, 'after');

    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 'info',
      message: 'request',
      fields: {
        requestId: expect.stringMatching(/^test-request-/),
        apiRequestId: 'JKJaXmPLvHcESHA=',
        method: 'POST',
        path: '/plants',
        status: 200,
        outcome: 'replayed',
        clientId: 'cli-client',
        latencyMs: expect.any(Number),
        Service: 'fn-1',
        CreatesReplayed: 1,
        StoreLatency: 3.25,
      },
    });
  });

  it('names the reason of an auth failure, as a field and a metric dimension', async () => {
    const lines = await logged((request) => {
      request.error = new UnauthorizedError('expired', 'Token has expired');
      request.response = errorResponse(401, 'Token has expired');
    }, 'onError');

    expect(lines[0]?.fields).toMatchObject({
      status: 401,
      outcome: 'unauthorized',
      authFailureReason: 'expired',
      AuthFailures: 1,
      AuthFailureReason: 'expired',
    });
  });

  it('names the version of the function that answered, from the Lambda context', async () => {
    const lines = await logged((request) => {
      request.context.functionVersion = '42';
      request.response = jsonResponse(200, { name: 'Fern' });
    }, 'after');

    expect(lines[0]?.fields).toMatchObject({ functionVersion: '42' });
  });

  it('counts a success with the counter its operation declares for it, whatever the status', async () => {
    const deletePlant = { ...failureCounters, deleted: 'PlantsDeleted' };

    const lines = await logged(
      (request) => {
        request.context.outcome = 'deleted';
        request.response = { statusCode: 204, headers: {} };
      },
      'after',
      deletePlant,
    );

    expect(lines[0]?.fields).toMatchObject({ status: 204, outcome: 'deleted', PlantsDeleted: 1 });
    expect(lines[0]?.fields).not.toHaveProperty('Errors');
  });

  it("counts a success nobody named, or an outcome its operation did not declare, with the operation's errors", async () => {
    const unnamed = await logged((request) => {
      request.response = jsonResponse(200, { name: 'Fern' });
    }, 'after');
    const undeclared = await logged((request) => {
      request.context.outcome = 'listed';
      request.response = jsonResponse(200, []);
    }, 'after');

    expect(unnamed[0]?.fields).toMatchObject({ status: 200, outcome: 'unnamed', Errors: 1 });
    expect(unnamed[0]?.fields).not.toHaveProperty('PlantsCreated');
    expect(undeclared[0]?.fields).toMatchObject({ status: 200, outcome: 'listed', Errors: 1 });
  });

  it('writes neither the token, the Authorization header nor the body', async () => {
    const lines = await logged((request) => {
      request.response = jsonResponse(200, { name: 'secret-name' });
    }, 'after');

    const written = JSON.stringify(lines);
    expect(written).not.toContain('secret-token');
    expect(written).not.toContain('secret-name');
  });
});

describe('roundMs', () => {
  it('keeps three decimals', () => {
    expect(roundMs(1.234_56)).toBe(1.235);
  });
});
