import { describe, expect, it } from 'vitest';
import { isCanonicalCompactJws } from '../../../functions/auth/compact-jws.ts';

/** `{"alg":"RS256"}`, `{"sub":"x"}` and three signature bytes: each segment in its one spelling. */
const header = 'eyJhbGciOiJSUzI1NiJ9';
const payload = 'eyJzdWIiOiJ4In0';
const jws = (signature: string) => `${header}.${payload}.${signature}`;

describe('isCanonicalCompactJws', () => {
  it.each([
    ['three segments', jws('c2ln')],
    ['a signature of two bytes', jws('c2k')],
    ['a signature of one byte', jws('cw')],
    [
      'every character of the alphabet',
      jws('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'),
    ],
    ['an empty signature (refused later for its algorithm)', jws('')],
  ])('accepts %s', (_case, token) => {
    expect(isCanonicalCompactJws(token)).toBe(true);
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
  ])('refuses %s', (_case, token) => {
    expect(isCanonicalCompactJws(token)).toBe(false);
  });
});
