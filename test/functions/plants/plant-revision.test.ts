import { describe, expect, it } from 'vitest';
import { asRevision, newRevision, unrevised } from '../../../functions/plants/plant-revision.ts';

describe('newRevision', () => {
  it('draws 22 base64url characters, a revision asRevision accepts, never unrevised', () => {
    const drawn = Array.from({ length: 200 }, newRevision);

    for (const revision of drawn) {
      expect(revision).toMatch(/^[A-Za-z0-9_-]{22}$/);
      expect(asRevision(revision)).toBe(revision);
    }
    expect(drawn).not.toContain(unrevised);
    expect(new Set(drawn).size).toBe(drawn.length);
  });
});

describe('asRevision', () => {
  it.each([unrevised, 'AAAAAAAAAAAAAAAAAAAAAA', 'a-b_c0123456789xyzXYZ_'])(
    'accepts %j, a revision this store could have written',
    (text) => {
      expect(asRevision(text)).toBe(text);
    },
  );

  it.each([
    '',
    '00',
    'AAAAAAAAAAAAAAAAAAAAA',
    'AAAAAAAAAAAAAAAAAAAAAAA',
    'AAAAAAAAAAAAAAAAAAAA+/',
    'AAAAAAAAAAAAAAAAAAAAA=',
    ' AAAAAAAAAAAAAAAAAAAAAA',
  ])('refuses %j, which no write of this store made', (text) => {
    expect(asRevision(text)).toBeUndefined();
  });
});
