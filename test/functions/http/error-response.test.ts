import httpJsonBodyParser from '@middy/http-json-body-parser';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import {
  ForbiddenError,
  IssuerUnavailableError,
  UnauthorizedError,
} from '../../../functions/auth/auth-errors.ts';
import { mapErrors } from '../../../functions/http/error-response.ts';
import { BadRequestError, createError } from '../../../functions/http/errors.ts';
import type { PlantMiddleware } from '../../../functions/http/request-context.ts';
import type { LogFields, LogLevel } from '../../../functions/log.ts';
import { InvalidPlantError } from '../../../functions/plants/new-plant.ts';
import {
  PlantConflictError,
  StoreUnavailableError,
} from '../../../functions/plants/plant-store.ts';

type ErrorRequest = Parameters<NonNullable<PlantMiddleware['onError']>>[0];

/** What mapErrors answers for `error`, and what it logged. */
async function mapped(error: unknown) {
  const logs: { level: LogLevel; message: string; fields: LogFields }[] = [];
  const request = {
    event: {},
    context: { awsRequestId: 'request-1' },
    response: undefined,
    error,
    internal: {},
  } as unknown as ErrorRequest;
  await mapErrors((level, message, fields) => logs.push({ level, message, fields })).onError?.(
    request,
  );
  const response = request.response;
  return {
    status: response?.statusCode,
    body: JSON.parse(response?.body ?? 'null'),
    headers: response?.headers,
    logs,
  };
}

/** The error the real JSON body parser throws for `body`. */
async function bodyParserError(body: string): Promise<Error> {
  const parser = httpJsonBodyParser({ disableContentTypeCheck: true });
  const event = { headers: {}, body, isBase64Encoded: false } as unknown as APIGatewayProxyEventV2;
  try {
    await parser.before?.({
      event,
      context: {},
      response: undefined,
      error: undefined,
      internal: {},
    } as never);
  } catch (error) {
    return error as Error;
  }
  throw new Error(`the body parser accepted ${body}`);
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
      () => new BadRequestError('Request body is required'),
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
      'a 413',
      () => createError(413, 'Request body must be at most 4 bytes'),
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

  it.each([
    ['malformed JSON', '{"id":', 'Request body is not valid JSON'],
    [
      'a __proto__ key',
      '{"__proto__":{"admin":true}}',
      'Request body must not contain the key "__proto__"',
    ],
    [
      'a constructor.prototype key',
      '{"constructor":{"prototype":{}}}',
      'Request body must not contain the key "constructor"',
    ],
  ])('answers the body parser refusing %s with a 400', async (_case, body, message) => {
    const error = await bodyParserError(body);

    const answer = await mapped(error);

    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ error: 400, message });
  });

  it("recognises the body parser's errors by their cause, not by their message text", async () => {
    // The same errors, reworded as a later Middy release might word them.
    const forbiddenKey = await bodyParserError('{"__proto__":{}}');
    const malformed = await bodyParserError('{');
    forbiddenKey.message = 'Body has a key that is not allowed';
    malformed.message = 'Body could not be parsed';

    const answers = [await mapped(forbiddenKey), await mapped(malformed)];

    expect(answers.map(({ status, body }) => [status, body.message])).toEqual([
      [400, 'Request body must not contain the key "__proto__"'],
      [400, 'Request body is not valid JSON'],
    ]);
  });

  it('answers an unexpected error, or one not meant for the client, with a fixed 500', async () => {
    const answers = [
      await mapped(new Error('database password is hunter2')),
      await mapped(createError(500, 'internal detail')),
    ];

    for (const answer of answers) {
      expect(answer.status).toBe(500);
      expect(answer.body).toEqual({ error: 500, message: 'Internal server error' });
      expect(answer.logs.map(({ message }) => message)).toEqual(['unexpected error']);
    }
  });
});
