import { describe, expect, it } from 'vitest';
import { errorResponse, noContentResponse } from '../../../functions/http/respond.ts';
import { hygieneHeaders, noContentHeaders } from '../../support/contract.ts';

describe('errorResponse', () => {
  it('answers {error, message} with the hygiene headers and any header of its own', () => {
    const response = errorResponse(503, 'retry later', { 'retry-after': '1' });

    expect(response).toStrictEqual({
      statusCode: 503,
      headers: { ...hygieneHeaders, 'retry-after': '1' },
      body: '{"error":503,"message":"retry later"}',
    });
  });
});

describe('noContentResponse', () => {
  it('answers 204 with Cache-Control and nosniff, and neither a body nor a Content-Type', () => {
    const response = noContentResponse();

    expect(response).toStrictEqual({ statusCode: 204, headers: noContentHeaders });
  });
});
