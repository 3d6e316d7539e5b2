import { describe, expect, it } from 'vitest';
import {
  baseUrl,
  isLoopback,
  LocalConfigError,
  loadLocalConfig,
  refuseWeakSecret,
} from '../../dev-server/config.ts';

describe('loadLocalConfig', () => {
  it('defaults to 127.0.0.1:3000, .data under the working directory and the local client', () => {
    const config = loadLocalConfig({}, '/work/app');

    expect(config).toEqual({
      host: '127.0.0.1',
      port: 3000,
      dataDir: '/work/app/.data',
      client: { id: 'local-client', secret: 'local-secret' },
    });
  });

  it('reads HOST, PORT, PLANTS_DATA_DIR and the client credentials', () => {
    const config = loadLocalConfig(
      {
        HOST: '0.0.0.0',
        PORT: '8080',
        PLANTS_DATA_DIR: '/var/plants',
        PLANTS_CLIENT_ID: 'me',
        PLANTS_CLIENT_SECRET: 's3cret',
      },
      '/work/app',
    );

    expect(config).toEqual({
      host: '0.0.0.0',
      port: 8080,
      dataDir: '/var/plants',
      client: { id: 'me', secret: 's3cret' },
    });
  });

  it('keeps everything in memory when PLANTS_DATA_DIR is "memory"', () => {
    const config = loadLocalConfig({ PLANTS_DATA_DIR: 'memory' });

    expect(config.dataDir).toBeUndefined();
  });

  it.each(['http', '-1', '65536', '3000.5'])('rejects PORT=%s, naming the variable', (port) => {
    const load = () => loadLocalConfig({ PORT: port });

    expect(load).toThrow(LocalConfigError);
    expect(load).toThrow(/^PORT must be/);
  });

  it('rejects a client id with a colon, which HTTP Basic cannot carry', () => {
    const load = () => loadLocalConfig({ PLANTS_CLIENT_ID: 'a:b' });

    expect(load).toThrow(/PLANTS_CLIENT_ID/);
  });

  it('reads PLANTS_WEBHOOK_URL and PLANTS_WEBHOOK_SECRET', () => {
    const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;

    const config = loadLocalConfig({
      PLANTS_WEBHOOK_URL: 'http://127.0.0.1:4000/',
      PLANTS_WEBHOOK_SECRET: secret,
    });

    expect(config.webhook).toEqual({ url: 'http://127.0.0.1:4000/', secret });
  });

  it.each([
    ['PLANTS_WEBHOOK_URL', 'ftp://127.0.0.1/hook', /^PLANTS_WEBHOOK_URL must be an http/],
    ['PLANTS_WEBHOOK_URL', 'not a url', /^PLANTS_WEBHOOK_URL is not a URL/],
    ['PLANTS_WEBHOOK_SECRET', 'hunter2-secret', /^PLANTS_WEBHOOK_SECRET must start with whsec_/],
    ['PLANTS_WEBHOOK_SECRET', 'whsec_c2hvcnQ=', /^PLANTS_WEBHOOK_SECRET is not usable: .*5 bytes/],
  ])('rejects %s=%s, saying why and never repeating a secret', (name, value, why) => {
    const load = () =>
      loadLocalConfig({ PLANTS_WEBHOOK_URL: 'http://127.0.0.1:4000/', [name]: value });

    expect(load).toThrow(LocalConfigError);
    expect(load).toThrow(why);
    if (name === 'PLANTS_WEBHOOK_SECRET') expect(load).not.toThrow(value);
  });
});

describe('baseUrl', () => {
  it.each([
    ['127.0.0.1', 'http://127.0.0.1:3000'],
    ['0.0.0.0', 'http://127.0.0.1:3000'],
    ['::1', 'http://[::1]:3000'],
    ['localhost', 'http://localhost:3000'],
  ])('reaches %s at %s', (host, url) => {
    const result = baseUrl(host, 3000);

    expect(result).toBe(url);
  });
});

describe('isLoopback', () => {
  it.each(['127.0.0.1', '127.8.9.10', '::1', '[::1]', '::ffff:127.0.0.1', '127.1', 'localhost'])(
    'calls %s loopback: every address it names is one only this machine can reach',
    async (host) => {
      const loopback = await isLoopback(host);

      expect(loopback).toBe(true);
    },
  );

  it.each(['0.0.0.0', '::', '10.0.0.1', '::ffff:10.0.0.1', '128.0.0.1'])(
    'calls %s reachable from other machines',
    async (host) => {
      const loopback = await isLoopback(host);

      expect(loopback).toBe(false);
    },
  );

  it('refuses a name that resolves to nothing, naming HOST', async () => {
    const checked = isLoopback('no-such-host.invalid');

    await expect(checked).rejects.toThrow(LocalConfigError);
    await expect(checked).rejects.toThrow('HOST no-such-host.invalid is not an address');
  });
});

describe('refuseWeakSecret', () => {
  const strong = 'x'.repeat(32);

  it.each([
    ['the published default', 'local-secret', /published default secret "local-secret"/],
    ['a one-character secret', 'a', /shorter than 32 characters/],
    ['a 31-character secret', 'x'.repeat(31), /shorter than 32 characters/],
  ])('refuses %s off loopback', (_name, secret, why) => {
    const refuse = () => refuseWeakSecret('0.0.0.0', false, secret);

    expect(refuse).toThrow(LocalConfigError);
    expect(refuse).toThrow(why);
    expect(refuse).toThrow(/PLANTS_CLIENT_SECRET/);
  });

  it('takes a secret of 32 characters off loopback, and any secret on loopback', () => {
    expect(() => refuseWeakSecret('0.0.0.0', false, strong)).not.toThrow();
    expect(() => refuseWeakSecret('127.0.0.1', true, 'local-secret')).not.toThrow();
    expect(() => refuseWeakSecret('127.0.0.1', true, 'a')).not.toThrow();
  });
});
