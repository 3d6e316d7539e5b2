import { randomBytes } from 'node:crypto';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import {
  SigningSecretError,
  signatureHeaders,
  signingKeyOf,
} from '../../../functions/deliver-webhook/signature.ts';

const secret = `whsec_${randomBytes(32).toString('base64')}`;
const payload = '{"id":9223372036854775807,"name":"Monstera \\"deliciosa\\"","tag":"🌿"}';
const now = () => Math.floor(Date.now() / 1000);

describe('signatureHeaders', () => {
  it('signs so that standardwebhooks verifies it with the same secret', () => {
    const signedAt = now();
    const headers = signatureHeaders(signingKeyOf(secret), 'msg_abc', signedAt, payload);

    const verified = new Webhook(secret).verify(payload, { ...headers });

    expect(verified).toMatchObject({ name: 'Monstera "deliciosa"', tag: '🌿' });
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
  });

  it('signs exactly as standardwebhooks itself signs', () => {
    const timestamp = now();

    const ours = signatureHeaders(signingKeyOf(secret), 'msg_abc', timestamp, payload);

    expect(ours['webhook-signature']).toBe(
      new Webhook(secret).sign('msg_abc', new Date(timestamp * 1000), payload),
    );
    expect(ours['webhook-timestamp']).toBe(String(timestamp));
  });

  it('fails verification with another secret', () => {
    const signedAt = now();
    const headers = signatureHeaders(signingKeyOf(secret), 'msg_abc', signedAt, payload);
    const otherSecret = `whsec_${randomBytes(32).toString('base64')}`;

    expect(() => new Webhook(otherSecret).verify(payload, { ...headers })).toThrow(
      WebhookVerificationError,
    );
  });

  it('signs with each of several keys, space-separated, so that either secret verifies', () => {
    const previous = `whsec_${randomBytes(32).toString('base64')}`;
    const other = `whsec_${randomBytes(32).toString('base64')}`;
    const signedAt = now();

    const headers = signatureHeaders(
      [signingKeyOf(secret), signingKeyOf(previous)],
      'msg_abc',
      signedAt,
      payload,
    );

    expect(headers['webhook-signature'].split(' ')).toStrictEqual([
      new Webhook(secret).sign('msg_abc', new Date(signedAt * 1000), payload),
      new Webhook(previous).sign('msg_abc', new Date(signedAt * 1000), payload),
    ]);
    expect(new Webhook(secret).verify(payload, { ...headers })).toMatchObject({ tag: '🌿' });
    expect(new Webhook(previous).verify(payload, { ...headers })).toMatchObject({ tag: '🌿' });
    expect(() => new Webhook(other).verify(payload, { ...headers })).toThrow(
      WebhookVerificationError,
    );
  });

  type Change = { readonly body?: string; readonly id?: string; readonly secondsLater?: number };
  it.each<[string, Change]>([
    ['another body', { body: payload.replace('9223372036854775807', '9223372036854775806') }],
    ['another id', { id: 'msg_abd' }],
    ['another timestamp', { secondsLater: 1 }],
  ])('fails verification for %s than was signed', (_case, change) => {
    const signedAt = now();
    const headers = signatureHeaders(signingKeyOf(secret), 'msg_abc', signedAt, payload);

    const act = () =>
      new Webhook(secret).verify(change.body ?? payload, {
        ...headers,
        'webhook-id': change.id ?? headers['webhook-id'],
        'webhook-timestamp': String(signedAt + (change.secondsLater ?? 0)),
      });

    expect(act).toThrow(WebhookVerificationError);
  });
});

describe('signingKeyOf', () => {
  it('reads the key with or without the whsec_ prefix, as standardwebhooks does', () => {
    const bare = secret.slice('whsec_'.length);

    expect(signingKeyOf(bare)).toStrictEqual(signingKeyOf(secret));
    expect(signingKeyOf(secret)).toHaveLength(32);
  });

  it('accepts a generated alphanumeric secret, which is base64 already', () => {
    const generated = 'Q7mVx2LpR9sT4wYb8nKc3fHj6dGz1aEu5oWi0qNr2tUy7vXe';
    const headers = signatureHeaders(signingKeyOf(generated), 'msg_1', now(), payload);

    expect(() => new Webhook(generated).verify(payload, { ...headers })).not.toThrow();
    expect(() => new Webhook(`whsec_${generated}`).verify(payload, { ...headers })).not.toThrow();
  });

  it.each([
    ['not base64', 'whsec_not base64!'],
    ['a key under 24 bytes', `whsec_${randomBytes(16).toString('base64')}`],
    ['a key over 64 bytes', `whsec_${randomBytes(65).toString('base64')}`],
    ['empty', 'whsec_'],
  ])('refuses %s, without saying what it holds', (_case, value) => {
    const act = () => signingKeyOf(value);

    expect(act).toThrow(SigningSecretError);
    try {
      act();
    } catch (error) {
      expect(String(error)).not.toContain(value.slice(6) || '\u0000');
    }
  });
});
