import { describe, expect, it } from 'vitest';
import { errorResponse, plantResponse } from '../../../functions/http/respond.ts';
import { hygieneHeaders } from '../../support/contract.ts';

describe('plantResponse', () => {
  it.each([
    ['with a tag', { id: '1', name: 'Fern', tag: 'indoor' }, { name: 'Fern', tag: 'indoor' }],
    ['without a tag', { id: '1', name: 'Cactus' }, { name: 'Cactus' }],
  ])('answers a plant %s with 200, its name and tag, never its id', (_case, plant, body) => {
    const response = plantResponse(plant);

    expect(response.statusCode).toBe(200);
    expect(response.headers).toStrictEqual(hygieneHeaders);
    expect(JSON.parse(response.body ?? '')).toStrictEqual(body);
  });
});

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
