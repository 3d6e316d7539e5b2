import { describe, expect, it } from 'vitest';
import { UnauthorizedError } from '../../../functions/auth/auth-errors.ts';
import { readCompactJws } from '../../../functions/auth/compact-jws.ts';

/** `{"alg":"RS256"}`, `{"sub":"x"}` and three signature bytes: each segment in its one spelling. */
const header = 'eyJhbGciOiJSUzI1NiJ9';
const payload = 'eyJzdWIiOiJ4In0';
const jws = (signature: string) => `${header}.${payload}.${signature}`;
const segment = (json: string) => Buffer.from(json).toString('base64url');

function refusal(token: string) {
  try {
    readCompactJws(token);
  } catch (error) {
    if (error instanceof UnauthorizedError) return [error.reason, error.message];
    throw error;
  }
  throw new Error('accepted');
}

describe('readCompactJws', () => {
  it('reads the header, and keeps the payload, the signature and what it signs as bytes', () => {
    const read = readCompactJws(jws('c2ln'));

    expect(read).toStrictEqual({
      header: { alg: 'RS256' },
      signingInput: Buffer.from(`${header}.${payload}`),
      payload: Buffer.from('{"sub":"x"}'),
      signature: Buffer.from('sig'),
    });
  });

  it.each([
    ['a signature of two bytes', jws('c2k')],
    ['a signature of one byte', jws('cw')],
    [
      'every character of the alphabet',
      jws(`${'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'}0123456789-_`),
    ],
    ['an empty signature (refused later for its algorithm)', jws('')],
  ])('accepts %s', (_case, token) => {
    expect(() => readCompactJws(token)).not.toThrow();
  });

  it.each([
    ['padding after a one-byte signature', jws('cw==')],
    ['padding after a two-byte signature', jws('c2k=')],
    ['padding on the payload', `${header}.${payload}=.c2ln`],
    ['unused bits set in the last of two characters', jws('cx')],
    ['unused bits set in the last of three characters', jws('c2l')],
    ['a length of one more than a multiple of four', jws('c2lnA')],
    ['base64 "+" for base64url "-"', jws('AB+_')],
    ['base64 "/" for base64url "_"', jws('AB-/')],
    ['a character outside both alphabets', jws('c2l~')],
    ['two segments', `${header}.${payload}`],
    ['four segments', `${jws('c2ln')}.c2ln`],
    ['five segments (a JWE)', `${jws('c2ln')}.c2ln.c2ln`],
    ['a header that is not JSON', `${segment('{alg:RS256}')}.${payload}.c2ln`],
    ['a header that is a JSON array', `${segment('["RS256"]')}.${payload}.c2ln`],
    ['a header that is a JSON string', `${segment('"RS256"')}.${payload}.c2ln`],
    ['a header that is JSON null', `${segment('null')}.${payload}.c2ln`],
    ['an empty header', `.${payload}.c2ln`],
    [
      'a header that is not UTF-8',
      `${Buffer.from([0x7b, 0xff, 0x7d]).toString('base64url')}.${payload}.c2ln`,
    ],
  ])('refuses %s as malformed', (_case, token) => {
    expect(refusal(token)).toStrictEqual(['invalid', 'Token is malformed or invalid']);
  });
});
