import { describe, expect, it } from 'vitest';
import { HttpError } from '../../../functions/http/http-error.ts';
import { maxNestingDepth, requireJsonBody } from '../../../functions/http/require-json-body.ts';
import { type EventOverrides, fakeEvent } from '../../support/fake-event.ts';
import { middlewareRequest } from '../../support/middleware-request.ts';

const maxBytes = 16_384;

/** Runs the middleware on an event: what the parser is handed next, or the status and message of the refusal. */
async function checked(overrides: EventOverrides) {
  const request = middlewareRequest(fakeEvent(overrides));
  try {
    await requireJsonBody(maxBytes).before?.(request);
  } catch (error) {
    if (error instanceof HttpError) return { status: error.statusCode, message: error.message };
    throw error;
  }
  const { event, context } = request;
  return { body: event.body, isBase64Encoded: event.isBase64Encoded, rawBody: context.rawBody };
}

const nested = (levels: number) =>
  `{"id":1,"name":"Deep","x":${'['.repeat(levels - 1)}"]["${']'.repeat(levels - 1)}}`;

describe('requireJsonBody', () => {
  it.each([['application/json'], ['application/json; charset=utf-8'], ['Application/JSON']])(
    'hands the parser the body as text, and keeps it, for the content type %s',
    async (contentType) => {
      const body = '{"id":1,"name":"Fern"}';

      const passed = await checked({ body, headers: { 'content-type': contentType } });

      expect(passed).toStrictEqual({ body, isBase64Encoded: false, rawBody: body });
    },
  );

  it.each([
    ['missing', undefined],
    ['text/plain', 'text/plain'],
    ['a JSON suffix type', 'application/vnd.api+json'],
    ['form data', 'application/x-www-form-urlencoded'],
  ])('refuses with 415 when the content type is %s', async (_case, contentType) => {
    const refused = await checked({ body: '{}', headers: { 'content-type': contentType } });

    expect(refused).toStrictEqual({
      status: 415,
      message: 'Content-Type must be application/json',
    });
  });

  it('refuses with 413 one byte past the limit and passes a body at it, text or base64', async () => {
    const atLimit = `"${'x'.repeat(maxBytes - 2)}"`;
    const overLimit = `"${'x'.repeat(maxBytes - 1)}"`;

    const answers = await Promise.all([
      checked({ body: atLimit }),
      checked({ body: overLimit }),
      checked({ body: Buffer.from(atLimit).toString('base64'), isBase64Encoded: true }),
      checked({ body: Buffer.from(overLimit).toString('base64'), isBase64Encoded: true }),
    ]);

    const tooLarge = { status: 413, message: 'Request body must be at most 16384 bytes' };
    expect(answers.map((answer) => ('status' in answer ? answer : 'passed'))).toStrictEqual([
      'passed',
      tooLarge,
      'passed',
      tooLarge,
    ]);
  });

  it.each([
    ['a missing body', undefined],
    ['an empty body', ''],
  ])('refuses %s with 400', async (_case, body) => {
    const refused = await checked({ body });

    expect(refused).toStrictEqual({ status: 400, message: 'Request body is required' });
  });

  it(`passes JSON nested ${maxNestingDepth} levels and refuses one more before parsing`, async () => {
    const deepest = await checked({ body: nested(maxNestingDepth) });
    const tooDeep = await checked({ body: nested(maxNestingDepth + 1) });

    expect(deepest).toMatchObject({ body: nested(maxNestingDepth) });
    expect(tooDeep).toStrictEqual({
      status: 400,
      message: 'Request body must not nest more than 64 levels',
    });
  });

  it('decodes a base64 body to text for the parser and refuses one that is not UTF-8 or not base64', async () => {
    const text = '{"id":1,"name":"Käktus"}';

    const decoded = await checked({
      body: Buffer.from(text).toString('base64'),
      isBase64Encoded: true,
    });
    const notUtf8 = await checked({
      body: Buffer.from([0x7b, 0xff, 0xfe, 0x7d]).toString('base64'),
      isBase64Encoded: true,
    });
    const notBase64 = await checked({ body: 'e30*', isBase64Encoded: true });

    expect(decoded).toStrictEqual({ body: text, isBase64Encoded: false, rawBody: text });
    expect(notUtf8).toStrictEqual({ status: 400, message: 'Request body is not valid UTF-8' });
    expect(notBase64).toStrictEqual({ status: 400, message: 'Request body is not valid base64' });
  });
});
