import { describe, expect, it } from 'vitest';
import {
  ForbiddenError,
  IssuerUnavailableError,
  UnauthorizedError,
} from '../../../functions/auth/auth-errors.ts';
import { errorAnswers, failureCounters } from '../../../functions/failures.ts';
import { type ErrorAnswer, mapErrors } from '../../../functions/http/error-response.ts';
import { HttpError } from '../../../functions/http/http-error.ts';
import type { HttpMiddleware } from '../../../functions/http/request-context.ts';
import type { LogFields, LogLevel } from '../../../functions/log.ts';
import { InvalidCursorError } from '../../../functions/plants/list-cursor.ts';
import {
  InvalidPlantError,
  PlantConflictError,
  StoreUnavailableError,
} from '../../../functions/plants/plant-errors.ts';
import { InvalidPlantIdError } from '../../../functions/plants/plant-id.ts';
import { bodyParserRefusalOf } from '../../support/body-parser-refusal.ts';

type ErrorRequest = Parameters<NonNullable<HttpMiddleware<{ outcome: string }>['onError']>>[0];

/**
 * What mapErrors, given the API's error table (or `answers`), answers for `error`, the outcome it
 * records over the one named before (`named`), and what it logged.
 */
async function mapped(
  error: unknown,
  answers: readonly ErrorAnswer[] = errorAnswers,
  named: string | undefined = undefined,
) {
  const logs: { level: LogLevel; message: string; fields: LogFields }[] = [];
  const request = {
    event: {},
    context: { awsRequestId: 'request-1', outcome: named },
    response: undefined,
    error,
    internal: {},
  } as unknown as ErrorRequest;
  await mapErrors(
    (level, message, fields) => logs.push({ level, message, fields }),
    answers,
  ).onError?.(request);
  const response = request.response;
  return {
    status: response?.statusCode,
    body: JSON.parse(response?.body ?? 'null'),
    headers: response?.headers,
    outcome: request.context.outcome,
    logs,
  };
}

describe('mapErrors', () => {
  it.each<[string, () => unknown, number, string, Record<string, string>]>([
    [
      'a conflict',
      () => new PlantConflictError('7'),
      409,
      'A different plant with id 7 already exists',
      {},
    ],
    [
      'an unavailable store',
      () => new StoreUnavailableError(new Error('throttled')),
      503,
      'The plant store is busy or unavailable, retry later',
      { 'retry-after': '1' },
    ],
    [
      'an unavailable issuer',
      () => new IssuerUnavailableError(new Error('timeout')),
      503,
      'Token issuer is unavailable, retry later',
      { 'retry-after': '5' },
    ],
    [
      'a bad request',
      () => new HttpError(400, 'Request body is required'),
      400,
      'Request body is required',
      {},
    ],
    [
      'a body that is not a NewPlant',
      () => new InvalidPlantError('id must be an integer'),
      400,
      'id must be an integer',
      {},
    ],
    [
      'a path id not in canonical form',
      () => new InvalidPlantIdError('id must be an integer in canonical decimal form'),
      400,
      'id must be an integer in canonical decimal form',
      {},
    ],
    [
      'a cursor this list did not issue',
      () => new InvalidCursorError('cursor is malformed: pass the next link as it was given'),
      400,
      'cursor is malformed: pass the next link as it was given',
      {},
    ],
    [
      'a 413',
      () => new HttpError(413, 'Request body must be at most 4 bytes'),
      413,
      'Request body must be at most 4 bytes',
      {},
    ],
    [
      'a refused token',
      () => new UnauthorizedError('expired', 'Token has expired'),
      401,
      'Token has expired',
      {
        'www-authenticate':
          'Bearer realm="plant-store", error="invalid_token", error_description="Token has expired"',
      },
    ],
    [
      'a missing scope',
      () => new ForbiddenError('Token lacks the scope "plants/write"', 'plants/write'),
      403,
      'Token lacks the scope "plants/write"',
      { 'www-authenticate': expect.stringContaining('scope="plants/write"') },
    ],
  ])(
    'answers %s with its status, message and headers',
    async (_case, error, status, message, headers) => {
      const answer = await mapped(error());

      expect(answer.status).toBe(status);
      expect(answer.body).toEqual({ error: status, message });
      expect(answer.headers).toMatchObject(headers);
      if (status !== 503) expect(answer.headers).not.toHaveProperty('retry-after');
    },
  );

  it('logs an unavailable dependency as a warning with its cause chain', async () => {
    const { logs } = await mapped(new IssuerUnavailableError(new Error('JWKS timed out')));

    expect(logs).toEqual([
      {
        level: 'warn',
        message: 'dependency unavailable',
        fields: {
          requestId: 'request-1',
          status: 503,
          error: [
            'IssuerUnavailableError: The token issuer is unavailable',
            'Error: JWKS timed out',
          ],
        },
      },
    ]);
  });

  it("answers an unexpected error, or another library's HTTP error no step translated, with a fixed 500", async () => {
    const answers = [
      await mapped(new Error('database password is hunter2')),
      await mapped(await bodyParserRefusalOf('{"id":')),
    ];

    for (const answer of answers) {
      expect(answer.status).toBe(500);
      expect(answer.body).toEqual({ error: 500, message: 'Internal server error' });
      expect(answer.logs.map(({ message }) => message)).toEqual(['unexpected error']);
    }
  });

  it('answers a domain error only through the table it is given', async () => {
    const answer = await mapped(new PlantConflictError('7'), []);

    expect(answer.status).toBe(500);
    expect(answer.body).toEqual({ error: 500, message: 'Internal server error' });
  });

  it('keeps the domain error, not its answer, in the log of an unavailable dependency', async () => {
    const { logs } = await mapped(new StoreUnavailableError(new Error('throttled')));

    expect(logs[0]?.fields.error).toEqual([
      'StoreUnavailableError: The plant store is unavailable',
      'Error: throttled',
    ]);
  });

  it('tells an unreachable issuer from an unavailable store in the outcome: both are 503s', async () => {
    const issuerDown = await mapped(new IssuerUnavailableError(new Error('connect ECONNREFUSED')));
    const storeDown = await mapped(new StoreUnavailableError(new Error('throttled')));

    expect([issuerDown.status, issuerDown.outcome]).toEqual([503, 'issuer_unavailable']);
    expect([storeDown.status, storeDown.outcome]).toEqual([503, 'unavailable']);
    expect(failureCounters.issuer_unavailable).toBe('IssuerUnavailable');
  });

  it.each<[string, () => unknown, string]>([
    ['a conflict', () => new PlantConflictError('7'), 'conflict'],
    [
      'a body that is not a NewPlant',
      () => new InvalidPlantError('id must be an integer'),
      'invalid',
    ],
    [
      'a refused token',
      () => new UnauthorizedError('expired', 'Token has expired'),
      'unauthorized',
    ],
    ['a missing scope', () => new ForbiddenError('Token lacks the scope', 's'), 'forbidden'],
    ['a 413', () => new HttpError(413, 'Request body must be at most 4 bytes'), 'invalid'],
    ['an unexpected error', () => new Error('bug'), 'error'],
  ])('records %s as the outcome %s', async (_case, error, outcome) => {
    expect((await mapped(error())).outcome).toBe(outcome);
  });

  it('records the failure over a success a step named before it failed', async () => {
    const answers = [
      await mapped(new HttpError(400, 'Request body is required'), errorAnswers, 'created'),
      await mapped(new Error('response could not be built'), errorAnswers, 'replayed'),
    ];

    expect(answers.map(({ status, outcome }) => [status, outcome])).toEqual([
      [400, 'invalid'],
      [500, 'error'],
    ]);
  });
});
