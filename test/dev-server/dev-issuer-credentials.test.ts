import { afterEach, describe, expect, it, vi } from 'vitest';
import { DevIssuer } from '../../dev-server/dev-issuer.ts';
import { loadOrCreateSigningKey } from '../../dev-server/issuer-files.ts';
import { client } from '../support/local-api-fixture.ts';

// The comparisons are observed through node:crypto's timingSafeEqual, which still does the work.
const compared = vi.hoisted(() => [] as [Buffer, Buffer][]);
vi.mock('node:crypto', async (importOriginal) => {
  const crypto = await importOriginal<typeof import('node:crypto')>();
  return {
    ...crypto,
    timingSafeEqual: (a: Buffer, b: Buffer) => {
      compared.push([a, b]);
      return crypto.timingSafeEqual(a, b);
    },
  };
});

const basic = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

describe('DevIssuer client authentication', () => {
  afterEach(() => {
    compared.length = 0;
  });

  it.each([
    ['the right credentials', client.id, client.secret, 200],
    ['a wrong id of the same length', client.id.replace(/.$/, '!'), client.secret, 401],
    ['a one-character id', 'x', client.secret, 401],
    ['a one-character secret', client.id, 'x', 401],
    ['a secret twice as long', client.id, client.secret.repeat(2), 401],
  ])(
    'compares id and secret both, in constant time over equal-length digests, for %s',
    async (_name, id, secret, status) => {
      const issuer = new DevIssuer({
        issuer: 'http://127.0.0.1:3000',
        key: await loadOrCreateSigningKey(undefined),
        client,
      });
      compared.length = 0;

      const answer = await issuer.tokenEndpoint({
        contentType: 'application/x-www-form-urlencoded',
        authorization: basic(id, secret),
        body: 'grant_type=client_credentials',
      });

      expect(answer.statusCode).toBe(status);
      expect(compared).toHaveLength(2);
      for (const [given, expected] of compared) {
        expect([given.length, expected.length]).toEqual([32, 32]);
      }
    },
  );
});
