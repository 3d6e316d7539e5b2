import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { errorAnswers } from '../../../functions/failures.ts';
import { mapErrors } from '../../../functions/http/error-response.ts';
import { HttpError } from '../../../functions/http/http-error.ts';
import {
  bodyParserPackage,
  bodyParserRefusal,
  parseJsonBody,
} from '../../../functions/http/parse-json-body.ts';
import { bodyParserRefusalOf } from '../../support/body-parser-refusal.ts';
import { fakeEvent } from '../../support/fake-event.ts';
import { middlewareRequest } from '../../support/middleware-request.ts';

const installed: { version: string } = JSON.parse(
  readFileSync(new URL('package.json', import.meta.resolve(bodyParserPackage)), 'utf8'),
);

/** Runs parseJsonBody on `body`, and mapErrors on what it throws: the body it hands on, or the answer. */
async function parsed(body: string) {
  const request = middlewareRequest(fakeEvent({ body }));
  try {
    await parseJsonBody().before?.(request);
    return { body: request.event.body as unknown };
  } catch (error) {
    request.error = error as Error;
    await mapErrors(() => {}, errorAnswers).onError?.(request);
    return { status: request.response?.statusCode, body: JSON.parse(request.response?.body ?? '') };
  }
}

describe('parseJsonBody', () => {
  it('hands on the JSON value of the body', async () => {
    expect(await parsed('{"id":1,"name":"Fern"}')).toStrictEqual({ body: { id: 1, name: 'Fern' } });
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
    const answer = await parsed(body);

    expect(answer).toStrictEqual({ status: 400, body: { error: 400, message } });
  });
});

describe('bodyParserRefusal', () => {
  it("recognises the body parser's errors by their cause, not by their message text", async () => {
    // The same errors, reworded as a later Middy release might word them.
    const forbiddenKey = await bodyParserRefusalOf('{"__proto__":{}}');
    const malformed = await bodyParserRefusalOf('{');
    forbiddenKey.message = 'Body has a key that is not allowed';
    malformed.message = 'Body could not be parsed';

    const refusals = [bodyParserRefusal(forbiddenKey), bodyParserRefusal(malformed)];

    expect(refusals.map((refusal) => [refusal?.statusCode, refusal?.message])).toEqual([
      [400, 'Request body must not contain the key "__proto__"'],
      [400, 'Request body is not valid JSON'],
    ]);
    expect(refusals.map((refusal) => refusal?.cause)).toStrictEqual([forbiddenKey, malformed]);
  });

  it('translates nothing the body parser did not throw', () => {
    const others = [
      new Error('plain'),
      new Error('another package', { cause: { package: '@middy/other', data: '__proto__' } }),
      'not an error',
    ];

    expect(others.map(bodyParserRefusal)).toStrictEqual([undefined, undefined, undefined]);
  });

  it(`reads the refusals of the installed ${bodyParserPackage} (${installed.version}) as they are shaped`, async () => {
    const malformed = await bodyParserRefusalOf('{"id":');
    const forbiddenKey = await bodyParserRefusalOf('{"__proto__":{}}');
    const prototypeKey = await bodyParserRefusalOf('{"constructor":{"prototype":{}}}');

    for (const refusal of [malformed, forbiddenKey, prototypeKey]) {
      expect(refusal).toMatchObject({ statusCode: 422, expose: true });
      expect(refusal).not.toBeInstanceOf(HttpError);
    }
    expect(malformed.cause).toStrictEqual({
      package: bodyParserPackage,
      data: '{"id":',
      message: expect.any(String),
    });
    expect(forbiddenKey.cause).toStrictEqual({ package: bodyParserPackage, data: '__proto__' });
    expect(prototypeKey.cause).toStrictEqual({ package: bodyParserPackage, data: 'constructor' });
  });
});
